# libtorch discovery for chapter 05 (the only chapter that uses it; the others never see its headers).
#   WB_TORCH (ON)  look for libtorch; OFF: chapter 05 is reported skipped
#   Torch_DIR      libtorch's CMake config; found from the `torch` Python package when not set:
#                  python3 -c 'import torch; print(torch.utils.cmake_prefix_path)', for the
#                  venv's python3 (WB_VENV, .venv) when there is one
# Sets, in the including scope:
#   WB_TORCH_FOUND           ON when chapter 05 can be built for at least one backend
#   WB_TORCH_BACKENDS        the backends of WB_BACKENDS it can be built for: cpu always, cuda only
#                            when torch was built with CUDA
#   WB_TORCH_MISSING_REASON  why not, for the skipped tests' message (per backend: _cpu, _cuda)
# and the interface targets wb::torch_cpu (libtorch's CPU part, plus emu/torch/include, the CPU
# backend's stand-ins for <c10/cuda/CUDAStream.h> and <c10/cuda/CUDAException.h>) and
# wb::torch_cuda (libtorch with CUDA).
option(WB_TORCH "Build chapter 05 (libtorch autograd wrapper) when libtorch is found" ON)
# The Python that has torch and pytest: the project's venv, which cmake/setup.sh makes (a stock
# Debian or Ubuntu python3 refuses pip installs, PEP 668), else the python3 on PATH.
set(WB_VENV "${WB_ROOT}/.venv" CACHE PATH "The Python venv for chapter 05 (torch, pytest), made by cmake/setup.sh")
if(EXISTS "${WB_VENV}/bin/python3")
  set(Python3_EXECUTABLE "${WB_VENV}/bin/python3")
endif()
find_package(Python3 COMPONENTS Interpreter QUIET)

set(WB_TORCH_FOUND OFF)
set(WB_TORCH_BACKENDS "")
set(WB_TORCH_MISSING_REASON "")

function(_wb_find_torch)
  if(NOT WB_TORCH)
    set(WB_TORCH_MISSING_REASON "libtorch is switched off (-DWB_TORCH=OFF)" PARENT_SCOPE)
    return()
  endif()
  if(NOT Torch_DIR OR NOT EXISTS "${Torch_DIR}/TorchConfig.cmake"
     OR (DEFINED WB_TORCH_DIR_FROM AND NOT WB_TORCH_DIR_FROM STREQUAL "${Python3_EXECUTABLE}"))
    if(NOT Python3_Interpreter_FOUND)
      set(WB_TORCH_MISSING_REASON "libtorch not found: no python3 to ask for the torch package (bash cmake/setup.sh installs it)" PARENT_SCOPE)
      return()
    endif()
    execute_process(COMMAND "${Python3_EXECUTABLE}" -c "import torch.utils; print(torch.utils.cmake_prefix_path)"
                    OUTPUT_VARIABLE prefix OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0 OR NOT EXISTS "${prefix}/Torch/TorchConfig.cmake")
      set(WB_TORCH_MISSING_REASON "libtorch not found: the torch Python package is not installed for ${Python3_EXECUTABLE} (bash cmake/setup.sh installs it, or set Torch_DIR)" PARENT_SCOPE)
      return()
    endif()
    set(Torch_DIR "${prefix}/Torch" CACHE PATH "libtorch's CMake config (from the torch Python package)" FORCE)
    set(WB_TORCH_DIR_FROM "${Python3_EXECUTABLE}" CACHE INTERNAL "the python whose torch gave Torch_DIR")
  endif()

  # Try libtorch's config apart first (once per Torch_DIR): it ends a configure it cannot serve.
  if(NOT WB_TORCH_PROBED STREQUAL "${Torch_DIR}")
    set(probe "${CMAKE_BINARY_DIR}/torch-probe")
    file(REMOVE_RECURSE "${probe}")
    message(STATUS "workbook: trying libtorch at ${Torch_DIR}")
    set(args "-DTorch_DIR=${Torch_DIR}" "-DRESULT_FILE=${probe}/result")
    if(CMAKE_CUDA_COMPILER)
      list(APPEND args "-DCMAKE_CUDA_COMPILER=${CMAKE_CUDA_COMPILER}")
    endif()
    execute_process(COMMAND "${CMAKE_COMMAND}" -S "${WB_ROOT}/cmake/torch-probe" -B "${probe}" -G "${CMAKE_GENERATOR}" ${args}
                    OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
    if(rc EQUAL 0 AND EXISTS "${probe}/result")
      file(READ "${probe}/result" kind)
    else()
      string(REGEX MATCH "CMake Error[^\n]*\n[^\n]*\n[^\n]*" first "${err}")
      string(REGEX REPLACE "[\n ]+" " " first "${first}")
      set(kind "error: ${first}")
    endif()
    set(WB_TORCH_PROBED "${Torch_DIR}" CACHE INTERNAL "")
    set(WB_TORCH_KIND "${kind}" CACHE INTERNAL "")
  endif()
  if(WB_TORCH_KIND MATCHES "^error")
    set(WB_TORCH_MISSING_REASON "libtorch at ${Torch_DIR} cannot be used here (${WB_TORCH_KIND}); see build/<preset>/torch-probe" PARENT_SCOPE)
    return()
  endif()

  find_package(Torch REQUIRED CONFIG)  # in this function's scope: its variables stay here
  set(WB_TORCH_FOUND ON PARENT_SCOPE)
  set(backends "")
  if("cpu" IN_LIST WB_BACKENDS)
    add_library(wb_torch_cpu INTERFACE)
    # The CPU backend needs no CUDA library: libtorch's CPU part only.
    target_link_libraries(wb_torch_cpu INTERFACE torch_cpu_library c10)
    target_include_directories(wb_torch_cpu INTERFACE "${WB_ROOT}/emu/torch/include")
    target_include_directories(wb_torch_cpu SYSTEM INTERFACE ${TORCH_INCLUDE_DIRS})
    target_compile_features(wb_torch_cpu INTERFACE cxx_std_20)  # libtorch's headers need C++20
    add_library(wb::torch_cpu ALIAS wb_torch_cpu)
    list(APPEND backends cpu)
  endif()
  if("cuda" IN_LIST WB_BACKENDS)
    if(TARGET torch_cuda)
      add_library(wb_torch_cuda INTERFACE)
      target_link_libraries(wb_torch_cuda INTERFACE torch c10_cuda)
      target_compile_features(wb_torch_cuda INTERFACE cxx_std_20)  # (.cu files: see _wb_kernel_object)
      # libtorch's CUDA libraries name others (NCCL, cuDNN...) that the wheel ships beside them;
      # point the linker there first, not at an older copy in the CUDA toolkit.
      get_filename_component(site "${Torch_DIR}/../../../.." ABSOLUTE)
      foreach(pkg cudnn nvshmem nccl cusparselt cu13 cu12)  # the wheel's RPATH names these
        if(IS_DIRECTORY "${site}/nvidia/${pkg}/lib")
          target_link_options(wb_torch_cuda INTERFACE "LINKER:-rpath-link,${site}/nvidia/${pkg}/lib")
        endif()
      endforeach()
      add_library(wb::torch_cuda ALIAS wb_torch_cuda)
      list(APPEND backends cuda)
    else()
      set(WB_TORCH_MISSING_REASON_cuda "libtorch at ${Torch_DIR} was built without CUDA" PARENT_SCOPE)
    endif()
  endif()
  set(WB_TORCH_BACKENDS "${backends}" PARENT_SCOPE)
  message(STATUS "workbook: libtorch ${Torch_VERSION} for chapter 05 (backends: ${backends})")
endfunction()

_wb_find_torch()
# libtorch's headers need C++20. CMake before 3.26 knows no C++20 flag for nvcc (which has had
# -std=c++20 since CUDA 12.0): name it, so CUDA_STANDARD 20 works for chapter 05's .cu files.
if(CMAKE_CUDA_COMPILER_ID STREQUAL "NVIDIA" AND NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
endif()
if(NOT WB_TORCH_FOUND)
  message(STATUS "workbook: chapter 05 skipped: ${WB_TORCH_MISSING_REASON}")
endif()

# workbook_add_torch_op(<NN-topic> GLUE <file.cpp> PYTEST <test.py>)
# For a chapter added with workbook_add_chapter(... TORCH), per backend libtorch serves, two shared
# libraries for torch.ops.load_library, each the chapter's GLUE (its TORCH_LIBRARY registration)
# with one kernel object of the chapter:
#   workbook_ops_<NN-topic>_<backend>           the learner's file (built by the grade command)
#   workbook_ops_<NN-topic>_<backend>_solution  the solution (the test suite's)
# The learner's grader runs the chapter's PYTEST on the learner's library as its last check, once
# the others pass (wb::require_python_op_check), and the solution's grader on the solution's; the
# test `<NN-topic>.<backend>.python` (labels python, chapter, <NN-topic>, <backend>) runs it on the
# solution's with pytest alone. The library's path is in WB_OPS_LIBRARY and the backend's device
# (cpu or cuda) in WB_OPS_DEVICE. Without libtorch or pytest, each reports skipped and why.
function(workbook_add_torch_op id)
  cmake_parse_arguments(PARSE_ARGV 1 OP "" "GLUE;PYTEST" "")
  set(chapter_dir "${WB_ROOT}/chapters/${id}")
  set(have_pytest OFF)
  if(Python3_Interpreter_FOUND)
    execute_process(COMMAND "${Python3_EXECUTABLE}" -c "import pytest" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
    if(rc EQUAL 0)
      set(have_pytest ON)
    endif()
  endif()
  foreach(backend IN LISTS WB_BACKENDS)
    set(name ${id}.${backend}.python)
    set(reason "")
    if(NOT backend IN_LIST WB_TORCH_BACKENDS)
      set(reason "${WB_TORCH_MISSING_REASON_${backend}}")
      if(NOT reason)
        set(reason "${WB_TORCH_MISSING_REASON}")
      endif()
    elseif(NOT have_pytest)
      set(reason "pytest is not installed for ${Python3_EXECUTABLE} (bash cmake/setup.sh grade installs it)")
    endif()
    if(reason)
      add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} -E echo "verdict: skipped: ${reason}")
      set_tests_properties(${name} PROPERTIES LABELS "python;chapter;${id};${backend}"
                                              SKIP_REGULAR_EXPRESSION "verdict: skipped")
    endif()
    if(NOT TARGET wb_${id}_grade_${backend})
      continue()  # the chapter is reported skipped on this backend: no grader to register with
    endif()
    if(backend STREQUAL "cpu")
      set_target_properties(wb_emu PROPERTIES POSITION_INDEPENDENT_CODE ON)  # linked into the libraries
    endif()
    set(glue wb_${id}_glue_${backend})
    add_library(${glue} OBJECT "${chapter_dir}/${OP_GLUE}")
    target_include_directories(${glue} PRIVATE "${chapter_dir}")
    target_link_libraries(${glue} PRIVATE wb::torch_${backend})
    set_target_properties(${glue} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    # (the kernel objects are position-independent already: see _wb_kernel_object)
    foreach(who learner solution)
      if(who STREQUAL "learner")
        set(lib workbook_ops_${id}_${backend})
        set(kernel wb_${id}_learner_${backend})
        set(grader grade-${id}-${backend})
        set(record "${CMAKE_BINARY_DIR}/python-check/${grader}.passed")  # see wb::PythonOpCheck
      else()
        set(lib workbook_ops_${id}_${backend}_solution)
        set(kernel wb_${id}.${backend}.solution)
        set(grader ${id}.${backend}.solution)
        set(record "")  # the test suite's run is never reused
      endif()
      add_library(${lib} SHARED $<TARGET_OBJECTS:${glue}>)
      target_link_libraries(${lib} PRIVATE ${kernel} wb::torch_${backend})
      set_target_properties(${lib} PROPERTIES PREFIX "lib" OUTPUT_NAME ${lib})
      if(who STREQUAL "learner")
        set_target_properties(${lib} PROPERTIES EXCLUDE_FROM_ALL ON)  # as the learner's grader
      endif()
      # The check the grader runs last: this library from Python (wb::require_python_op_check).
      set(check "${CMAKE_BINARY_DIR}/python-check/${grader}.cpp")
      file(GENERATE OUTPUT "${check}" CONTENT
"// Generated by workbook_add_torch_op (cmake/WorkbookTorch.cmake): what ${grader} checks from Python.
#include \"wb/python_check.hpp\"
namespace {
const bool registered = wb::register_python_op_check({\"${Python3_EXECUTABLE}\", \"${chapter_dir}/${OP_PYTEST}\",
    \"chapters/${id}/${OP_PYTEST}\", \"$<TARGET_FILE:${lib}>\", \"$<IF:$<STREQUAL:${backend},cpu>,cpu,cuda>\",
    \"${reason}\", \"${record}\"});
}  // namespace
")
      target_sources(${grader} PRIVATE "${check}")
      add_dependencies(${grader} ${lib})
    endforeach()
    if(NOT reason)
      add_test(NAME ${name}
        COMMAND "${Python3_EXECUTABLE}" -m pytest -q -rs -p no:cacheprovider "${chapter_dir}/${OP_PYTEST}")
      set_tests_properties(${name} PROPERTIES
        LABELS "python;chapter;${id};${backend}"
        ENVIRONMENT "WB_OPS_LIBRARY=$<TARGET_FILE:workbook_ops_${id}_${backend}_solution>;WB_OPS_DEVICE=$<IF:$<STREQUAL:${backend},cpu>,cpu,cuda>"
        SKIP_RETURN_CODE 5  # pytest's "no test ran": the module skipped itself (no CUDA device)
        TIMEOUT 600)
    endif()
  endforeach()
endfunction()
