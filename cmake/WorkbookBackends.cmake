# Backend selection.
#   WB_CPU_BACKEND  (ON)    build every chapter for the CPU backend (emu/): no GPU needed
#   WB_CUDA_BACKEND (AUTO)  build every chapter with nvcc; AUTO: when a CUDA compiler is found
#   WB_CUDA_VARIANTS (ON)   and, with it, every planted bug and accepted variant (OFF: `ci` preset)
# CUDA architectures: CMAKE_CUDA_ARCHITECTURES (or the CUDAARCHS environment variable) when set;
# otherwise `native` when nvidia-smi sees a GPU, else the fixed list WB_DEFAULT_CUDA_ARCHITECTURES
# (75: Turing PTX and code, which later GPUs run; 90: Hopper code, as on the H200).
option(WB_CPU_BACKEND "Build the chapters for the CPU backend" ON)
# The CUDA backend's copy of every mutant and accepted variant: only a GPU can run them, so a
# build for a machine without one (the `ci` preset) leaves them out, and their tests say skipped.
option(WB_CUDA_VARIANTS "Build the CUDA backend's planted bugs and accepted variants" ON)
set(WB_CUDA_BACKEND "AUTO" CACHE STRING "Build the chapters with nvcc: ON, OFF or AUTO")
set_property(CACHE WB_CUDA_BACKEND PROPERTY STRINGS AUTO ON OFF)
set(WB_DEFAULT_CUDA_ARCHITECTURES "75;90" CACHE STRING "CUDA architectures when no GPU is present to ask")

if(WB_CUDA_BACKEND STREQUAL "AUTO" OR WB_CUDA_BACKEND)
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED ENV{CUDAARCHS})
      execute_process(COMMAND nvidia-smi -L RESULT_VARIABLE _smi OUTPUT_VARIABLE _gpus ERROR_QUIET)
      if(_smi EQUAL 0 AND _gpus MATCHES "GPU 0")
        set(CMAKE_CUDA_ARCHITECTURES native)
      else()
        set(CMAKE_CUDA_ARCHITECTURES ${WB_DEFAULT_CUDA_ARCHITECTURES})
      endif()
    endif()
    enable_language(CUDA)
    # nvcc's -g is full debug information for the host code only (device code gets -lineinfo, in
    # WorkbookChapter.cmake). For a file that includes libtorch's headers (chapter 05) it costs a
    # third of the compile: 25 of 61 s for the learner's file on the H200 machine's host, 8.6 vs
    # 12.5 s here without it. Line tables (-g1) keep host backtraces' file:line at almost no cost.
    # Only CMake's default is replaced: flags the user chose are kept.
    if(CMAKE_CUDA_FLAGS_RELWITHDEBINFO STREQUAL "-O2 -g -DNDEBUG")
      set(CMAKE_CUDA_FLAGS_RELWITHDEBINFO "-O2 -Xcompiler=-g1 -DNDEBUG")
    endif()
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
    set(WB_CUDA_BACKEND_ENABLED ON)
  elseif(WB_CUDA_BACKEND STREQUAL "AUTO")
    message(STATUS "workbook: no CUDA compiler found: building the CPU backend only")
    set(WB_CUDA_BACKEND_ENABLED OFF)
  else()
    message(FATAL_ERROR "workbook: WB_CUDA_BACKEND=ON but no CUDA compiler (nvcc) was found")
  endif()
else()
  set(WB_CUDA_BACKEND_ENABLED OFF)
endif()

# The CPU backend's nvcc check (cmake/NvccCheck.cmake): where nvcc is installed and compiles a
# small kernel (once; the answer is cached), each learner's kernel file is compiled with it too
# before the CPU backend builds it, so what nvcc rejects does not compile there either.
option(WB_NVCC_CHECK "CPU backend: check the learner's kernel files with nvcc where it is installed" ON)
set(WB_NVCC_CHECK_ARCH "")
if(WB_CPU_BACKEND AND WB_NVCC_CHECK)
  find_program(WB_NVCC nvcc HINTS /usr/local/cuda/bin)
  if(WB_NVCC AND NOT DEFINED WB_NVCC_WORKS)
    list(GET WB_DEFAULT_CUDA_ARCHITECTURES 0 _arch)
    set(_probe "${CMAKE_BINARY_DIR}/nvcc-check/probe.cu")
    file(WRITE "${_probe}" "__device__ float twice(float x) { return 2 * x; }\n"
                           "__global__ void k(float* d) { d[threadIdx.x] = twice(d[threadIdx.x]); }\n")
    execute_process(COMMAND "${WB_NVCC}" -c -rdc=true -std=c++17 -arch=sm_${_arch} "${_probe}" -o "${_probe}.o"
                    RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_VARIABLE _err)
    if(_rc EQUAL 0)
      set(WB_NVCC_WORKS ON CACHE INTERNAL "nvcc compiles a kernel here")
    else()
      set(WB_NVCC_WORKS OFF CACHE INTERNAL "nvcc compiles a kernel here")
      message(STATUS "workbook: ${WB_NVCC} does not compile a small kernel here, so the CPU backend does not "
                     "check kernel files with it: ${_err}")
    endif()
  endif()
  if(WB_NVCC AND WB_NVCC_WORKS)
    list(GET WB_DEFAULT_CUDA_ARCHITECTURES 0 WB_NVCC_CHECK_ARCH)
    message(STATUS "workbook: CPU backend: learner's kernel files are checked with ${WB_NVCC} (sm_${WB_NVCC_CHECK_ARCH})")
  endif()
endif()

set(WB_BACKENDS "")
if(WB_CPU_BACKEND)
  list(APPEND WB_BACKENDS cpu)
endif()
if(WB_CUDA_BACKEND_ENABLED)
  list(APPEND WB_BACKENDS cuda)
endif()
if(NOT WB_BACKENDS)
  message(FATAL_ERROR "workbook: no backend enabled (WB_CPU_BACKEND and WB_CUDA_BACKEND are both off)")
endif()
if(WB_CUDA_BACKEND_ENABLED)
  message(STATUS "workbook: backends: ${WB_BACKENDS} (CUDA architectures: ${CMAKE_CUDA_ARCHITECTURES})")
else()
  message(STATUS "workbook: backends: ${WB_BACKENDS}")
endif()
