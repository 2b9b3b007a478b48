# workbook_add_chapter(): one call adds a chapter, for every backend in WB_BACKENDS:
#
#   workbook_add_chapter(<NN-topic>
#     TITLE "<words>"             # shown in the grader's summary
#     KERNEL <file.cu>            # the learner's file in chapters/<NN-topic>/, same name in solutions/
#     [MUTANTS <name.patch|name.cu>...]   # planted bugs in tests/mutants/<NN-topic>/: the grader must reject each
#     [ACCEPTED <name.patch|name.cu>...]  # correct variants in tests/accepted/<NN-topic>/: the grader must accept each
#     [INSTRUMENT]                # CPU backend: build every kernel file of the chapter instrumented, so the
#                                 # grader can read wb_emu::last_launch_memory_stats() and shared-memory
#                                 # races are faults (emu/include/wb_emu/instrument.hpp)
#     [TORCH])                    # the chapter uses libtorch (see WorkbookTorch.cmake): its kernel files and
#                                 # grader are compiled as C++20 and linked with wb::torch_<backend>; on a
#                                 # backend libtorch cannot serve, every test and the grader report "skipped"
#
# workbook_add_graded(<id> SOURCE_DIR <dir> SOLUTION_DIR <dir> VARIANT_DIR <dir> ...) does the same for
# any graded folder (an exercise: exercises/NN-name, solutions/exercises/NN-name); the folders are
# relative to the repository's root, and the other arguments are workbook_add_chapter's.
#
# It builds, per backend (cpu, cuda):
#   grade-<NN-topic>-<backend>   the learner's grader: chapters/<NN-topic>/grade.cpp linked with the
#                                learner's kernel file (namespace student) and the solution (namespace
#                                solution); built only on demand (by the grade command), so a
#                                half-edited kernel never breaks the test suite's build
#   inspect-<NN-topic>-cpu, inspect-<NN-topic>-solution-cpu
#                                the same grader with the learner's file, or the solution, built
#                                instrumented, on demand (the check and profile commands)
# and the test suite's tests, labelled `chapter`, `<NN-topic>` and `<backend>`:
#   <NN-topic>.<backend>.solution          the solution graded as if it were the learner's: must pass
#   <NN-topic>.<backend>.stub              the pristine stub (tests/stubs/): must fail as "not started"
#   <NN-topic>.<backend>.mutants.<name>    must fail, with the diagnosis its `expect: <regex>` line names
#   <NN-topic>.<backend>.accepted.<name>   must pass (and, where it has an `expect:` line, say that)
#
# A variant (mutant or accepted) is either a patch against the solution, `<name>.patch`, or a whole
# kernel file in namespace student, `<name>.cu` (for a different design). A patch is a unified
# diff (`diff -u`) of the solution's file, applied at configure time with GNU patch and no fuzz;
# configure stops, naming the patch, when it no longer applies. Its leading text, before the diff,
# carries the variant's lines (a .cu file carries them as `// ` comments):
#   Planted bug: <what is wrong, in one line>
#   expect: <regex>           (mutants) the diagnosis the grader must give; (accepted) what the passing
#                             verdict must say as well (a not-checked line, a note)
#   cpu-expect: <regex>       (accepted) as expect:, on the CPU backend only (a note only it can give)
#   gpu-only: <reason>        only a GPU can catch this bug; on the CPU backend the test reports skipped
#   cpu-only: <reason>        only the CPU backend can catch it; on a GPU the test reports skipped
# On the CUDA backend without a device every grader reports "skipped", and ctest shows it skipped.

set(WB_ROOT "${CMAKE_CURRENT_LIST_DIR}/.." CACHE INTERNAL "")
get_filename_component(WB_ROOT "${WB_ROOT}" ABSOLUTE)

# One kernel source compiled for one backend as an object library `target`.
# RENAME_SOLUTION compiles a solution file as if it were the learner's (namespace student).
# INSTRUMENT (CPU backend; ignored on CUDA) rewrites it with `wb-emu-rewrite --instrument` and
# compiles it with the compiler's access instrumentation (WB_EMU_INSTRUMENT_FLAGS, emu/CMakeLists.txt;
# WB_EMU_INSTRUMENT=1): its global-memory accesses are counted, its shared-memory accesses checked
# for races, and its accesses out of bounds or misaligned are faults. NVCC_CHECK (CPU backend, where nvcc works) compiles it with nvcc
# first (cmake/NvccCheck.cmake): what nvcc rejects does not compile on the CPU backend either.
function(_wb_kernel_object target backend chapter_dir source)
  cmake_parse_arguments(PARSE_ARGV 4 K "RENAME_SOLUTION;INSTRUMENT;NVCC_CHECK" "" "")
  if(backend STREQUAL "cpu")
    file(RELATIVE_PATH rel "${WB_ROOT}" "${source}")
    set(out "${CMAKE_BINARY_DIR}/emu-src/${target}.cpp")
    set(flags)
    set(what "rewriting")
    if(K_INSTRUMENT)
      set(flags --instrument)
      set(what "rewriting (instrumented)")
    endif()
    # NVCC_CHECK: the file compiles with nvcc first, where nvcc works (WorkbookBackends.cmake).
    set(checked)
    if(K_NVCC_CHECK AND WB_NVCC_CHECK_ARCH)
      set(checked "${CMAKE_BINARY_DIR}/nvcc-check/${target}.o")
      file(GLOB headers "${chapter_dir}/*.cuh")
      add_custom_command(OUTPUT "${checked}"
        COMMAND ${CMAKE_COMMAND} "-DNVCC=${WB_NVCC}" "-DSOURCE=${source}" "-DINCLUDE=${chapter_dir}"
                "-DARCH=${WB_NVCC_CHECK_ARCH}" "-DOUTPUT=${checked}" -P "${WB_ROOT}/cmake/NvccCheck.cmake"
        DEPENDS "${source}" ${headers} "${WB_ROOT}/cmake/NvccCheck.cmake"
        COMMENT "CPU backend: checking ${rel} with nvcc"
        VERBATIM)
    endif()
    # The headers the file includes from beside it are rewritten too, into a folder of the target's
    # (the depfile makes an edit of one rewrite again).
    set(headers_out "${CMAKE_BINARY_DIR}/emu-src/${target}.h")
    add_custom_command(OUTPUT "${out}"
      COMMAND ${CMAKE_COMMAND} -E make_directory "${headers_out}"
      COMMAND wb-emu-rewrite ${flags} --headers "${headers_out}" --depfile "${out}.d" "${source}" "${out}"
      DEPENDS "${source}" wb-emu-rewrite ${checked}
      DEPFILE "${out}.d"
      COMMENT "CPU backend: ${what} ${rel}"
      VERBATIM)
    add_library(${target} OBJECT "${out}")
    target_link_libraries(${target} PUBLIC wb::emu)
    if(K_INSTRUMENT)
      target_compile_definitions(${target} PRIVATE WB_EMU_INSTRUMENT=1)
      target_compile_options(${target} PRIVATE ${WB_EMU_INSTRUMENT_FLAGS})
    endif()
  else()
    add_library(${target} OBJECT "${source}")
    set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES "${CMAKE_CUDA_ARCHITECTURES}")
    # Source lines in compute-sanitizer's and Nsight Compute's reports (no effect on the code).
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>)
    target_link_libraries(${target} PUBLIC CUDA::cudart)
  endif()
  target_include_directories(${target} PRIVATE "${chapter_dir}")
  if(K_RENAME_SOLUTION)
    target_compile_definitions(${target} PRIVATE solution=student)
  endif()
  # RelWithDebInfo's -O2 -g, lighter (see below); the same for the precompiled headers and their users.
  set(_wb_torch_cpu_flags "$<$<CONFIG:RelWithDebInfo>:-O1;-g1>")
  if(_wb_torch)  # set by workbook_add_chapter(... TORCH)
    target_link_libraries(${target} PUBLIC wb::torch_${backend})
    # Position-independent: the same objects go into the graders and the Python op libraries.
    set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    if(backend STREQUAL "cpu")
      # libtorch's headers are most of the compile of a file that includes them (about 20 of 25 s
      # here): they are precompiled once, by wb_torch_pch_cpu, and every such kernel file reuses
      # them, so an edit of the learner's file recompiles only that file's own code.
      if(NOT TARGET wb_torch_pch_cpu)
        set(pch_source "${CMAKE_BINARY_DIR}/emu-src/wb_torch_pch.cpp")
        file(CONFIGURE OUTPUT "${pch_source}" CONTENT "// Owns the CPU backend's precompiled libtorch headers (cmake/WorkbookChapter.cmake).\n")
        add_library(wb_torch_pch_cpu OBJECT "${pch_source}")
        target_link_libraries(wb_torch_pch_cpu PUBLIC wb::emu wb::torch_cpu)
        set_target_properties(wb_torch_pch_cpu PROPERTIES POSITION_INDEPENDENT_CODE ON)
        # <cuda_runtime.h> first: the CPU backend's stand-in, which defines WB_EMU, as the chapter's header does.
        target_precompile_headers(wb_torch_pch_cpu PRIVATE <cuda_runtime.h> <torch/autograd.h> <torch/types.h>)
        target_compile_options(wb_torch_pch_cpu PRIVATE ${_wb_torch_cpu_flags})
      endif()
      target_precompile_headers(${target} REUSE_FROM wb_torch_pch_cpu)
      # What is left is libtorch's templates that the file instantiates: -O1 with line tables
      # compiles it in about 4.8 s instead of 7 s (-O2 -g), and the emulated kernels of these
      # chapters are elementwise, where -O1 costs the grader nothing it shows.
      target_compile_options(${target} PRIVATE ${_wb_torch_cpu_flags})
    endif()
    if(backend STREQUAL "cuda")
      set_target_properties(${target} PROPERTIES CUDA_STANDARD 20)  # libtorch's headers need C++20
    endif()
  endif()
endfunction()

# wb_add_emu_test_kernel(<target> <file.cu> [INSTRUMENT]): a .cu file rewritten and compiled for
# the CPU backend exactly as a chapter's kernels are, as an object library (for the backend's own tests).
function(wb_add_emu_test_kernel target source)
  cmake_parse_arguments(PARSE_ARGV 2 K "INSTRUMENT" "" "")
  get_filename_component(dir "${source}" DIRECTORY)
  set(opts)
  if(K_INSTRUMENT)
    set(opts INSTRUMENT)
  endif()
  _wb_kernel_object(${target} cpu "${dir}" "${source}" ${opts})
endfunction()

# A grader executable: the chapter's grade.cpp objects, the solution, and one `student` object.
function(_wb_grader_exe exe backend id title student_target student_label)
  add_executable(${exe} ${ARGN})
  target_link_libraries(${exe} PRIVATE wb_${id}_grade_${backend} wb_${id}_solution_${backend} ${student_target})
  wb_grader_main(${exe} ${backend} ID "${id}" TITLE "${title}" KERNEL_FILE "${student_label}")
endfunction()

# A test that runs a grader and checks its verdict (cmake/RunGrader.cmake reads the JSON document
# the grader writes to build/<preset>/verdicts/<test>.json): EXPECT pass, or fail with a verdict
# whose text matches REGEX.
function(_wb_grader_test name exe backend id expect regex)
  add_test(NAME ${name}
    COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:${exe}> "-DVERDICT=${CMAKE_BINARY_DIR}/verdicts/${name}.json"
            -DEXPECT=${expect} "-DREGEX=${regex}" -P "${WB_ROOT}/cmake/RunGrader.cmake")
  set_tests_properties(${name} PROPERTIES
    LABELS "chapter;${id};${backend}"
    SKIP_REGULAR_EXPRESSION "verdict: skipped"
    TIMEOUT 600)
  # On one GPU, a verdict that rests on speed (a kernel that must pass, or one that must be too
  # slow) is only fair with the GPU to itself: those tests run one at a time under `ctest -j`,
  # beside the short correctness failures of the other mutants.
  if(backend STREQUAL "cuda" AND (expect STREQUAL "pass" OR regex MATCHES "slow|speed|sectors|bank"))
    set_tests_properties(${name} PROPERTIES RESOURCE_LOCK gpu_timing)
  endif()
endfunction()

# A test, and a grader for the grade command, that only report the chapter skipped and why.
function(_wb_skipped_chapter id backend title reason mutants)
  set_property(GLOBAL PROPERTY WB_CATALOG_SKIP_${id}_${backend} "${reason}")  # for the catalog
  add_executable(grade-${id}-${backend})
  wb_grader_main(grade-${id}-${backend} ${backend} ID "${id}" TITLE "${title}" SKIPPED SKIP_REASON "${reason}")
  set_target_properties(grade-${id}-${backend} PROPERTIES EXCLUDE_FROM_ALL ON)
  foreach(name solution stub ${mutants})
    add_test(NAME ${id}.${backend}.${name} COMMAND ${CMAKE_COMMAND} -E echo "verdict: skipped: ${reason}")
    set_tests_properties(${id}.${backend}.${name} PROPERTIES LABELS "chapter;${id};${backend}"
                                                           SKIP_REGULAR_EXPRESSION "verdict: skipped")
  endforeach()
endfunction()

# _wb_variant_line(<out> <file> <key>): the text after `<key>: ` on a variant's leading line (a
# `// ` comment in a .cu file), or "" when there is none.
function(_wb_variant_line out file key)
  file(STRINGS "${file}" line REGEX "^(// )?${key}: " LIMIT_COUNT 1)
  string(REGEX REPLACE "^(// )?${key}: " "" line "${line}")
  set(${out} "${line}" PARENT_SCOPE)
endfunction()

# wb_variant_source(<out_source> <out_rename> <variant> <solution> <work_dir>): the kernel file a
# variant compiles. A `.cu` variant is itself (a whole file in namespace student: <out_rename> is
# OFF). A `.patch` is applied to <solution> at configure time, into <work_dir>/<solution's name>
# (rewritten only when its text changes, so a configure does not rebuild it), and compiles with
# the solution's namespace renamed (<out_rename> is ON); configure stops if it no longer applies.
# Without GNU patch, <out_source> is "" (the caller's test then fails and says to install it: the
# learner's graders need no patch, the test suite does).
function(wb_variant_source out_source out_rename variant solution work_dir)
  get_filename_component(ext "${variant}" LAST_EXT)
  if(NOT ext STREQUAL ".patch")
    set(${out_source} "${variant}" PARENT_SCOPE)
    set(${out_rename} OFF PARENT_SCOPE)
    return()
  endif()
  find_program(WB_PATCH_EXECUTABLE patch DOC "GNU patch, which applies the test suite's variants")
  file(RELATIVE_PATH rel_variant "${WB_ROOT}" "${variant}")
  file(RELATIVE_PATH rel_solution "${WB_ROOT}" "${solution}")
  if(NOT WB_PATCH_EXECUTABLE)
    set(${out_source} "" PARENT_SCOPE)
    set(${out_rename} ON PARENT_SCOPE)
    return()
  endif()
  get_filename_component(name "${solution}" NAME)
  set(out "${work_dir}/${name}")
  file(MAKE_DIRECTORY "${work_dir}")
  execute_process(COMMAND "${WB_PATCH_EXECUTABLE}" --batch --quiet --forward --fuzz=0 --no-backup-if-mismatch
                          --reject-file=- -o "${out}.new" "${solution}" "${variant}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE patch_out ERROR_VARIABLE patch_err)
  if(NOT rc EQUAL 0)
    file(REMOVE "${out}.new")
    string(STRIP "${patch_out}${patch_err}" why)
    message(FATAL_ERROR "${rel_variant} no longer applies to ${rel_solution} (GNU patch, no fuzz: ${why}). "
                        "Plant the same bug in the current solution and regenerate it: copy ${rel_solution}, edit the "
                        "copy, and write `diff -u ${rel_solution} <copy>` after the patch's leading lines.")
  endif()
  file(COPY_FILE "${out}.new" "${out}" ONLY_IF_DIFFERENT)
  file(REMOVE "${out}.new")
  set_property(DIRECTORY "${CMAKE_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${variant}" "${solution}")
  set(${out_source} "${out}" PARENT_SCOPE)
  set(${out_rename} ON PARENT_SCOPE)
endfunction()

# _wb_add_variants(<id> <backend> <kind> <files>...): the tests of one kind (MUTANTS or
# ACCEPTED) of variants for one backend. Uses the caller's src_dir, solution_file, variant_dir,
# instr and CH_TITLE.
function(_wb_add_variants id backend kind)
  string(TOLOWER "${kind}" dir)
  set(t ${id}.${backend})
  foreach(file IN LISTS ARGN)
    set(src "${WB_ROOT}/tests/${dir}/${variant_dir}/${file}")
    if(NOT EXISTS "${src}")
      message(FATAL_ERROR "${id}: ${dir} variant tests/${dir}/${variant_dir}/${file} is missing")
    endif()
    get_filename_component(stem "${file}" NAME_WE)
    set(name ${t}.${dir}.${stem})
    if(kind STREQUAL "MUTANTS")
      _wb_variant_line(regex "${src}" expect)
      if(NOT regex)
        message(FATAL_ERROR "${src}: a mutant needs an `expect: <regex>` line naming the diagnosis")
      endif()
      # `gpu-only: <why>` / `cpu-only: <why>`: only that backend can catch this bug.
      set(only_other "")
      foreach(only gpu cpu)
        _wb_variant_line(why "${src}" ${only}-only)
        if(why AND NOT backend STREQUAL "${only}" AND NOT (only STREQUAL "gpu" AND backend STREQUAL "cuda"))
          set(only_other "${why}")
        endif()
      endforeach()
      if(only_other)
        set(where "the CPU backend")
        if(backend STREQUAL "cuda")
          set(where "a GPU")
        endif()
        add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} -E echo "verdict: skipped on ${where}: ${only_other}")
        set_tests_properties(${name} PROPERTIES LABELS "chapter;${id};${backend}"
                                                SKIP_REGULAR_EXPRESSION "verdict: skipped")
        continue()
      endif()
      set(expect fail)
    else()
      _wb_variant_line(regex "${src}" expect)
      if(backend STREQUAL "cpu")
        _wb_variant_line(cpu_regex "${src}" cpu-expect)
        if(cpu_regex)
          set(regex "${cpu_regex}")
        endif()
      endif()
      set(expect pass)
    endif()
    wb_variant_source(kernel rename "${src}" "${solution_file}" "${CMAKE_BINARY_DIR}/variants/${dir}/${variant_dir}/${stem}")
    if(NOT kernel)
      add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} -E echo
               "tests/${dir}/${variant_dir}/${file} is a patch, and GNU patch was not found: install it (bash cmake/setup.sh)")
      set_tests_properties(${name} PROPERTIES LABELS "chapter;${id};${backend}" FAIL_REGULAR_EXPRESSION "not found")
      continue()
    endif()
    # A build for a machine without a GPU (the `ci` preset) compiles the CUDA backend's graders,
    # solutions and stubs, not its copy of every variant: their tests could only say skipped.
    # The patch applied above all the same; the CPU backend's copy of each variant runs.
    if(backend STREQUAL "cuda" AND NOT WB_CUDA_VARIANTS)
      add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} -E echo
               "verdict: skipped: WB_CUDA_VARIANTS=OFF, the CUDA backend's variants are not built here (no GPU to run them)")
      set_tests_properties(${name} PROPERTIES LABELS "chapter;${id};${backend}" SKIP_REGULAR_EXPRESSION "verdict: skipped")
      continue()
    endif()
    set(opts ${instr})
    if(rename)
      list(APPEND opts RENAME_SOLUTION)
    endif()
    _wb_kernel_object(wb_${name} ${backend} "${src_dir}" "${kernel}" ${opts})
    _wb_grader_exe(${name} ${backend} ${id} "${CH_TITLE}" wb_${name} "tests/${dir}/${variant_dir}/${file}")
    _wb_grader_test(${name} ${name} ${backend} ${id} ${expect} "${regex}")
  endforeach()
endfunction()

function(workbook_add_chapter id)
  workbook_add_graded(${id} SOURCE_DIR chapters/${id} SOLUTION_DIR solutions/${id} VARIANT_DIR ${id} ${ARGN})
  set_property(GLOBAL APPEND PROPERTY WB_CHAPTERS ${id})
endfunction()

function(workbook_add_graded id)
  cmake_parse_arguments(PARSE_ARGV 1 CH "INSTRUMENT;TORCH" "TITLE;KERNEL;SOURCE_DIR;SOLUTION_DIR;VARIANT_DIR"
                        "MUTANTS;ACCEPTED")
  foreach(required SOURCE_DIR SOLUTION_DIR VARIANT_DIR TITLE KERNEL)
    if(NOT CH_${required})
      message(FATAL_ERROR "workbook_add_graded(${id}): ${required} is missing")
    endif()
  endforeach()
  set(instr)
  if(CH_INSTRUMENT)
    set(instr INSTRUMENT)
  endif()
  set(_wb_torch ${CH_TORCH})
  set(rel_src "${CH_SOURCE_DIR}")
  set(src_dir "${WB_ROOT}/${CH_SOURCE_DIR}")
  set(solution_dir "${WB_ROOT}/${CH_SOLUTION_DIR}")
  set(solution_file "${solution_dir}/${CH_KERNEL}")
  set(variant_dir "${CH_VARIANT_DIR}")
  foreach(f "${src_dir}/README.md" "${src_dir}/grade.cpp" "${src_dir}/${CH_KERNEL}" "${solution_file}")
    if(NOT EXISTS "${f}")
      message(FATAL_ERROR "workbook_add_graded(${id}): ${f} is missing")
    endif()
  endforeach()

  # The pristine stub, for the test suite's stub test (the learner's edits and commits don't change
  # what it tests): kept in tests/stubs/, beside the mutants; the test `stubs.match` says when the
  # learner's file and it differ.
  set(stub_copy "${WB_ROOT}/tests/stubs/${variant_dir}/${CH_KERNEL}")
  if(NOT EXISTS "${stub_copy}")
    message(FATAL_ERROR "workbook_add_graded(${id}): the pristine stub tests/stubs/${variant_dir}/${CH_KERNEL} is missing: "
                        "copy the stub there (cp ${rel_src}/${CH_KERNEL} tests/stubs/${variant_dir}/) and commit it")
  endif()
  set_property(GLOBAL APPEND PROPERTY WB_STUB_PAIRS "${rel_src}/${CH_KERNEL}=tests/stubs/${variant_dir}/${CH_KERNEL}")
  # What the catalog (wb_write_catalog) says of it.
  set_property(GLOBAL PROPERTY WB_CATALOG_TITLE_${id} "${CH_TITLE}")
  set_property(GLOBAL PROPERTY WB_CATALOG_FOLDER_${id} "${rel_src}")
  set_property(GLOBAL PROPERTY WB_CATALOG_KERNEL_${id} "${rel_src}/${CH_KERNEL}")
  set_property(GLOBAL PROPERTY WB_CATALOG_STUB_${id} "tests/stubs/${variant_dir}/${CH_KERNEL}")
  set_property(GLOBAL PROPERTY WB_CATALOG_SOLUTION_${id} "${CH_SOLUTION_DIR}/${CH_KERNEL}")

  foreach(backend IN LISTS WB_BACKENDS)
    if(CH_TORCH AND NOT backend IN_LIST WB_TORCH_BACKENDS)
      set(reason "${WB_TORCH_MISSING_REASON_${backend}}")
      if(NOT reason)
        set(reason "${WB_TORCH_MISSING_REASON}")
      endif()
      set(names "")
      foreach(kind MUTANTS ACCEPTED)
        string(TOLOWER "${kind}" dir)
        foreach(file IN LISTS CH_${kind})
          get_filename_component(stem "${file}" NAME_WE)
          list(APPEND names ${dir}.${stem})
        endforeach()
      endforeach()
      _wb_skipped_chapter(${id} ${backend} "${CH_TITLE}" "${reason}" "${names}")
      continue()
    endif()
    _wb_kernel_object(wb_${id}_solution_${backend} ${backend} "${src_dir}" "${solution_file}" ${instr})

    add_library(wb_${id}_grade_${backend} OBJECT "${src_dir}/grade.cpp")
    target_include_directories(wb_${id}_grade_${backend} PRIVATE "${src_dir}")
    target_link_libraries(wb_${id}_grade_${backend} PUBLIC wb::grader_${backend})
    if(CH_TORCH)
      wb_grader_torch_library(${backend})
      target_link_libraries(wb_${id}_grade_${backend} PUBLIC wb::grader_torch_${backend})
    endif()

    # The learner's grader (built on demand by the grade command).
    set(check)
    if(NOT CH_TORCH)  # nvcc would need libtorch's CUDA headers
      set(check NVCC_CHECK)
    endif()
    _wb_kernel_object(wb_${id}_learner_${backend} ${backend} "${src_dir}" "${src_dir}/${CH_KERNEL}" ${instr} ${check})
    _wb_grader_exe(grade-${id}-${backend} ${backend} ${id} "${CH_TITLE}" wb_${id}_learner_${backend}
                   "${rel_src}/${CH_KERNEL}")
    set_target_properties(wb_${id}_learner_${backend} grade-${id}-${backend} PROPERTIES EXCLUDE_FROM_ALL ON)

    # The command line's `check` and `profile` on the CPU backend (cmake/workbook.sh): the
    # learner's file and the solution built instrumented (shared-memory races and out-of-bounds
    # accesses are faults; WB_EMU_PROFILE gets the sectors per request of each source line).
    if(backend STREQUAL "cpu")
      _wb_kernel_object(wb_${id}_inspect_cpu cpu "${src_dir}" "${src_dir}/${CH_KERNEL}" INSTRUMENT ${check})
      _wb_grader_exe(inspect-${id}-cpu cpu ${id} "${CH_TITLE}" wb_${id}_inspect_cpu "${rel_src}/${CH_KERNEL}")
      _wb_kernel_object(wb_${id}_inspect_solution_cpu cpu "${src_dir}" "${solution_file}" RENAME_SOLUTION INSTRUMENT)
      _wb_grader_exe(inspect-${id}-solution-cpu cpu ${id} "${CH_TITLE}" wb_${id}_inspect_solution_cpu
                     "${CH_SOLUTION_DIR}/${CH_KERNEL}")
      set_target_properties(wb_${id}_inspect_cpu inspect-${id}-cpu wb_${id}_inspect_solution_cpu
                            inspect-${id}-solution-cpu PROPERTIES EXCLUDE_FROM_ALL ON)
    endif()

    # The test suite's graders.
    set(t ${id}.${backend})
    _wb_kernel_object(wb_${t}.solution ${backend} "${src_dir}" "${solution_file}" RENAME_SOLUTION ${instr})
    _wb_grader_exe(${t}.solution ${backend} ${id} "${CH_TITLE}" wb_${t}.solution "${CH_SOLUTION_DIR}/${CH_KERNEL}")
    _wb_grader_test(${t}.solution ${t}.solution ${backend} ${id} pass "")

    _wb_kernel_object(wb_${t}.stub ${backend} "${src_dir}" "${stub_copy}" ${instr})
    _wb_grader_exe(${t}.stub ${backend} ${id} "${CH_TITLE}" wb_${t}.stub "${rel_src}/${CH_KERNEL}")
    _wb_grader_test(${t}.stub ${t}.stub ${backend} ${id} fail "verdict: not started: edit ${rel_src}/${CH_KERNEL}")

    _wb_add_variants(${id} ${backend} MUTANTS ${CH_MUTANTS})
    _wb_add_variants(${id} ${backend} ACCEPTED ${CH_ACCEPTED})
  endforeach()
endfunction()

# wb_write_catalog(<file>): every chapter and exercise this build grades, in the grade command's
# order, as one JSON document (docs/command-line.md, "The catalog"): for each, its id, title,
# folder, the learner's kernel file, its pristine stub, the solution, the page with its hints,
# and per backend of this build the grader's target (and the instrumented ones of the CPU
# backend's check and profile) or why it is skipped there.
function(wb_write_catalog file)
  get_property(ids GLOBAL PROPERTY WB_CHAPTERS)
  set(doc "{}")
  string(JSON doc SET "${doc}" schema 1)
  set(backends "[]")
  set(i 0)
  foreach(backend IN LISTS WB_BACKENDS)
    string(JSON backends SET "${backends}" ${i} "\"${backend}\"")
    math(EXPR i "${i} + 1")
  endforeach()
  string(JSON doc SET "${doc}" backends "${backends}")
  string(JSON doc SET "${doc}" graded "[]")
  set(n 0)
  foreach(id IN LISTS ids)
    set(entry "{}")
    string(JSON entry SET "${entry}" id "\"${id}\"")
    set(kind chapter)
    if(id MATCHES "^x")
      set(kind exercise)
    endif()
    string(JSON entry SET "${entry}" kind "\"${kind}\"")
    foreach(key TITLE FOLDER KERNEL STUB SOLUTION)
      get_property(value GLOBAL PROPERTY WB_CATALOG_${key}_${id})
      string(REPLACE "\\" "\\\\" value "${value}")
      string(REPLACE "\"" "\\\"" value "${value}")
      string(TOLOWER "${key}" name)
      if(name STREQUAL "kernel")
        set(name kernel_file)
      endif()
      string(JSON entry SET "${entry}" ${name} "\"${value}\"")
    endforeach()
    get_property(folder GLOBAL PROPERTY WB_CATALOG_FOLDER_${id})
    string(JSON entry SET "${entry}" hints "\"${folder}/README.md\"")
    set(per "{}")
    foreach(backend IN LISTS WB_BACKENDS)
      set(b "{}")
      get_property(skip GLOBAL PROPERTY WB_CATALOG_SKIP_${id}_${backend})
      string(JSON b SET "${b}" grade "\"grade-${id}-${backend}\"")
      if(NOT skip)  # the test suite's grader of the solution: profile's second column on a GPU
        string(JSON b SET "${b}" solution "\"${id}.${backend}.solution\"")
      endif()
      if(skip)
        string(REPLACE "\"" "\\\"" skip "${skip}")
        string(JSON b SET "${b}" skipped "\"${skip}\"")
      else()
        string(JSON b SET "${b}" skipped null)
      endif()
      if(backend STREQUAL "cpu" AND NOT skip)
        string(JSON b SET "${b}" inspect "\"inspect-${id}-cpu\"")
        string(JSON b SET "${b}" inspect_solution "\"inspect-${id}-solution-cpu\"")
      endif()
      string(JSON per SET "${per}" ${backend} "${b}")
    endforeach()
    string(JSON entry SET "${entry}" targets "${per}")
    string(JSON doc SET "${doc}" graded ${n} "${entry}")
    math(EXPR n "${n} + 1")
  endforeach()
  file(CONFIGURE OUTPUT "${file}" CONTENT "${doc}\n" @ONLY)
endfunction()
