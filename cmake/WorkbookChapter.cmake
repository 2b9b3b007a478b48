# workbook_add_chapter(): one call adds a chapter, for every backend in WB_BACKENDS:
#
#   workbook_add_chapter(<NN-topic>
#     TITLE "<words>"             # shown in the grader's summary
#     KERNEL <file.cu>            # the learner's file in chapters/<NN-topic>/, same name in solutions/
#     [MUTANTS <file.cu>...]      # planted bugs in tests/mutants/<NN-topic>/: the grader must reject each
#     [ACCEPTED <file.cu>...]     # correct variants in tests/accepted/<NN-topic>/: the grader must accept each
#     [INSTRUMENT]                # CPU backend: build every kernel file of the chapter instrumented, so the
#                                 # grader can read wb_emu::last_launch_memory_stats() and shared-memory
#                                 # races are faults (emu/include/wb_emu/instrument.hpp)
#     [TORCH])                    # the chapter uses libtorch (see WorkbookTorch.cmake): its kernel files and
#                                 # grader are compiled as C++20 and linked with wb::torch_<backend>; on a
#                                 # backend libtorch cannot serve, every test and the grader report "skipped"
#
# It builds, per backend (cpu, cuda):
#   grade-<NN-topic>-<backend>   the learner's grader: chapters/<NN-topic>/grade.cpp linked with the
#                                learner's kernel file (namespace student) and the solution (namespace
#                                solution); built only on demand (by the grade command), so a
#                                half-edited kernel never breaks the test suite's build
# and the test suite's tests, labelled `chapter`, `<NN-topic>` and `<backend>`:
#   <NN-topic>.<backend>.solution     the solution graded as if it were the learner's: must pass
#   <NN-topic>.<backend>.stub         the stub as committed: must fail as "not started"
#   <NN-topic>.<backend>.mutant.<m>   must fail, with the diagnosis its `// expect: <regex>` line names
#   <NN-topic>.<backend>.accepted.<a> must pass
# A mutant with a `// gpu-only: <reason>` line can only be caught on a GPU (`// cpu-only: <reason>`:
# only on the CPU backend); on the other backend its
# test reports itself skipped with that reason.
# On the CUDA backend without a device every grader reports "skipped", and ctest shows it skipped.

set(WB_ROOT "${CMAKE_CURRENT_LIST_DIR}/.." CACHE INTERNAL "")
get_filename_component(WB_ROOT "${WB_ROOT}" ABSOLUTE)

# One kernel source compiled for one backend as an object library `target`.
# RENAME_SOLUTION compiles a solution file as if it were the learner's (namespace student).
# INSTRUMENT (CPU backend; ignored on CUDA) rewrites it with `wb-emu-rewrite --instrument` and
# defines WB_EMU_INSTRUMENT=1: its global-memory accesses are counted and its shared-memory
# accesses checked for races.
function(_wb_kernel_object target backend chapter_dir source)
  cmake_parse_arguments(PARSE_ARGV 4 K "RENAME_SOLUTION;INSTRUMENT" "" "")
  if(backend STREQUAL "cpu")
    file(RELATIVE_PATH rel "${WB_ROOT}" "${source}")
    set(out "${CMAKE_BINARY_DIR}/emu-src/${target}.cpp")
    set(flags)
    set(what "rewriting")
    if(K_INSTRUMENT)
      set(flags --instrument)
      set(what "rewriting (instrumented)")
    endif()
    add_custom_command(OUTPUT "${out}"
      COMMAND wb-emu-rewrite ${flags} "${source}" "${out}"
      DEPENDS "${source}" wb-emu-rewrite
      COMMENT "CPU backend: ${what} ${rel}"
      VERBATIM)
    add_library(${target} OBJECT "${out}")
    target_link_libraries(${target} PUBLIC wb::emu)
    if(K_INSTRUMENT)
      target_compile_definitions(${target} PRIVATE WB_EMU_INSTRUMENT=1)
    endif()
  else()
    add_library(${target} OBJECT "${source}")
    set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES "${CMAKE_CUDA_ARCHITECTURES}")
    target_link_libraries(${target} PUBLIC CUDA::cudart)
  endif()
  target_include_directories(${target} PRIVATE "${chapter_dir}")
  if(K_RENAME_SOLUTION)
    target_compile_definitions(${target} PRIVATE solution=student)
  endif()
  if(_wb_torch)  # set by workbook_add_chapter(... TORCH)
    target_link_libraries(${target} PUBLIC wb::torch_${backend})
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
  add_executable(${exe} ${ARGN} "${WB_GRADER_MAIN}")
  target_link_libraries(${exe} PRIVATE wb_${id}_grade_${backend} wb_${id}_solution_${backend} ${student_target}
                                       wb::grader_${backend})
  target_compile_definitions(${exe} PRIVATE WB_CHAPTER_ID="${id}" WB_CHAPTER_TITLE="${title}"
                                            WB_STUDENT_FILE="${student_label}")
endfunction()

# A test that runs a grader and checks its verdict: EXPECT pass, or fail with output matching REGEX.
function(_wb_grader_test name exe backend id expect regex)
  add_test(NAME ${name}
    COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:${exe}> -DEXPECT=${expect} "-DREGEX=${regex}"
            -P "${WB_ROOT}/cmake/RunGrader.cmake")
  set_tests_properties(${name} PROPERTIES
    LABELS "chapter;${id};${backend}"
    SKIP_REGULAR_EXPRESSION "verdict: skipped"
    TIMEOUT 600)
endfunction()

# A test, and a grader for the grade command, that only report the chapter skipped and why.
function(_wb_skipped_chapter id backend title reason mutants)
  add_executable(grade-${id}-${backend} "${WB_ROOT}/grader/src/skipped_main.cpp")
  target_compile_definitions(grade-${id}-${backend} PRIVATE WB_CHAPTER_ID="${id}" WB_CHAPTER_TITLE="${title}"
                                                            WB_SKIP_REASON="${reason}")
  set_target_properties(grade-${id}-${backend} PROPERTIES EXCLUDE_FROM_ALL ON)
  foreach(name solution stub ${mutants})
    add_test(NAME ${id}.${backend}.${name} COMMAND ${CMAKE_COMMAND} -E echo "verdict: skipped: ${reason}")
    set_tests_properties(${id}.${backend}.${name} PROPERTIES LABELS "chapter;${id};${backend}"
                                                           SKIP_REGULAR_EXPRESSION "verdict: skipped")
  endforeach()
endfunction()

function(workbook_add_chapter id)
  cmake_parse_arguments(PARSE_ARGV 1 CH "INSTRUMENT;TORCH" "TITLE;KERNEL" "MUTANTS;ACCEPTED")
  set(instr)
  if(CH_INSTRUMENT)
    set(instr INSTRUMENT)
  endif()
  set(_wb_torch ${CH_TORCH})
  set(chapter_dir "${WB_ROOT}/chapters/${id}")
  set(solution_dir "${WB_ROOT}/solutions/${id}")
  foreach(f "${chapter_dir}/README.md" "${chapter_dir}/grade.cpp" "${chapter_dir}/${CH_KERNEL}"
            "${solution_dir}/${CH_KERNEL}")
    if(NOT EXISTS "${f}")
      message(FATAL_ERROR "workbook_add_chapter(${id}): ${f} is missing")
    endif()
  endforeach()

  # The stub as committed, for the test suite (the learner's edits don't change what it tests).
  set(stub_copy "${CMAKE_BINARY_DIR}/pristine/${id}/${CH_KERNEL}")
  execute_process(COMMAND git show "HEAD:chapters/${id}/${CH_KERNEL}"
                  WORKING_DIRECTORY "${WB_ROOT}" OUTPUT_VARIABLE stub_text RESULT_VARIABLE git_rc ERROR_QUIET)
  if(NOT git_rc EQUAL 0)
    file(READ "${chapter_dir}/${CH_KERNEL}" stub_text)
  endif()
  file(CONFIGURE OUTPUT "${stub_copy}" CONTENT "${stub_text}" @ONLY)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${chapter_dir}/${CH_KERNEL}")

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
    _wb_kernel_object(wb_${id}_solution_${backend} ${backend} "${chapter_dir}" "${solution_dir}/${CH_KERNEL}" ${instr})

    add_library(wb_${id}_grade_${backend} OBJECT "${chapter_dir}/grade.cpp")
    target_include_directories(wb_${id}_grade_${backend} PRIVATE "${chapter_dir}")
    target_link_libraries(wb_${id}_grade_${backend} PUBLIC wb::grader_${backend})
    if(CH_TORCH)
      wb_grader_torch_library(${backend})
      target_link_libraries(wb_${id}_grade_${backend} PUBLIC wb::grader_torch_${backend})
    endif()

    # The learner's grader (built on demand by the grade command).
    _wb_kernel_object(wb_${id}_learner_${backend} ${backend} "${chapter_dir}" "${chapter_dir}/${CH_KERNEL}" ${instr})
    _wb_grader_exe(grade-${id}-${backend} ${backend} ${id} "${CH_TITLE}" wb_${id}_learner_${backend}
                   "chapters/${id}/${CH_KERNEL}")
    set_target_properties(wb_${id}_learner_${backend} grade-${id}-${backend} PROPERTIES EXCLUDE_FROM_ALL ON)

    # The test suite's graders.
    set(t ${id}.${backend})
    _wb_kernel_object(wb_${t}.solution ${backend} "${chapter_dir}" "${solution_dir}/${CH_KERNEL}" RENAME_SOLUTION ${instr})
    _wb_grader_exe(${t}.solution ${backend} ${id} "${CH_TITLE}" wb_${t}.solution "solutions/${id}/${CH_KERNEL}")
    _wb_grader_test(${t}.solution ${t}.solution ${backend} ${id} pass "")

    _wb_kernel_object(wb_${t}.stub ${backend} "${chapter_dir}" "${stub_copy}" ${instr})
    _wb_grader_exe(${t}.stub ${backend} ${id} "${CH_TITLE}" wb_${t}.stub "chapters/${id}/${CH_KERNEL}")
    _wb_grader_test(${t}.stub ${t}.stub ${backend} ${id} fail "verdict: not started: edit chapters/${id}/${CH_KERNEL}")

    foreach(kind MUTANTS ACCEPTED)
      string(TOLOWER "${kind}" dir)
      foreach(file IN LISTS CH_${kind})
        set(src "${WB_ROOT}/tests/${dir}/${id}/${file}")
        get_filename_component(stem "${file}" NAME_WE)
        set(name ${t}.${dir}.${stem})
        if(kind STREQUAL "MUTANTS")
          file(STRINGS "${src}" expect_line REGEX "^// expect: " LIMIT_COUNT 1)
          if(NOT expect_line)
            message(FATAL_ERROR "${src}: a mutant needs a `// expect: <regex>` line naming the diagnosis")
          endif()
          string(REGEX REPLACE "^// expect: " "" regex "${expect_line}")
          # `// gpu-only: <why>` / `// cpu-only: <why>`: only that backend can catch this bug.
          set(only_other "")
          foreach(only gpu cpu)
            file(STRINGS "${src}" only_line REGEX "^// ${only}-only: " LIMIT_COUNT 1)
            if(only_line AND NOT backend STREQUAL "${only}" AND NOT (only STREQUAL "gpu" AND backend STREQUAL "cuda"))
              string(REGEX REPLACE "^// ${only}-only: " "" only_other "${only_line}")
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
          set(regex "")
          set(expect pass)
        endif()
        _wb_kernel_object(wb_${name} ${backend} "${chapter_dir}" "${src}" ${instr})
        _wb_grader_exe(${name} ${backend} ${id} "${CH_TITLE}" wb_${name} "tests/${dir}/${id}/${file}")
        _wb_grader_test(${name} ${name} ${backend} ${id} ${expect} "${regex}")
      endforeach()
    endforeach()
  endforeach()
  set_property(GLOBAL APPEND PROPERTY WB_CHAPTERS ${id})
endfunction()
