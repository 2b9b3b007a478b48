# The CPU backend's nvcc check of a learner's kernel file (_wb_kernel_object(... NVCC_CHECK) in
# WorkbookChapter.cmake): where nvcc is installed, the file must compile with it too, for one
# architecture and with no GPU, so CUDA that only the host compiler accepts (a host function
# called from a kernel, a __device__ function called from the host...) does not compile on the
# CPU backend either. Relocatable device code (-rdc) leaves calls that only the link would refuse
# to the launch rewriter's own checks, which name their line. nvcc's `file(line): error` is
# written `file:line: error`, as the host compiler writes it.
#   cmake -DNVCC=<nvcc> -DSOURCE=<file.cu> -DINCLUDE=<dir> -DARCH=<NN> -DOUTPUT=<object> -P NvccCheck.cmake
file(REMOVE "${OUTPUT}")
execute_process(COMMAND "${NVCC}" -c -rdc=true -std=c++17 -arch=sm_${ARCH} "-I${INCLUDE}" "${SOURCE}" -o "${OUTPUT}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  string(REGEX REPLACE "([^\n]+)\\(([0-9]+)\\): (error|warning)" "\\1:\\2: \\3" text "${out}${err}")
  message("${text}")
  message(FATAL_ERROR "nvcc does not compile ${SOURCE}: a GPU build would stop here too (the CPU backend checks "
                      "your kernel file with nvcc where it is installed; WB_NVCC_CHECK=OFF turns the check off)")
endif()
