# Runs one grader for the test suite and checks its verdict (see workbook_add_chapter).
#   cmake -DEXE=<grader> -DEXPECT=pass|fail [-DREGEX=<regex>] -P RunGrader.cmake
execute_process(COMMAND "${EXE}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if("${out}" MATCHES "verdict: skipped")
  return()  # ctest's SKIP_REGULAR_EXPRESSION reports it as skipped
endif()
if(EXPECT STREQUAL "pass")
  if(NOT rc EQUAL 0 OR NOT "${out}" MATCHES "verdict: correct")
    message(FATAL_ERROR "expected the grader to accept this kernel; it exited with ${rc}")
  endif()
else()
  if(rc EQUAL 0)
    message(FATAL_ERROR "expected the grader to reject this kernel, but it passed")
  endif()
  # An expected verdict ("verdict: not started...") is looked for in the grader's own summary, the
  # last "==== ... ====" block: a nested run (compute-sanitizer's copy of the grader) prints one
  # of its own earlier, which must not count.
  set(text "${out}${err}")
  if(REGEX MATCHES "^verdict:")
    string(FIND "${out}" "\n==== " at REVERSE)
    if(at GREATER -1)
      string(SUBSTRING "${out}" ${at} -1 text)
    endif()
  endif()
  # Catch2 wraps messages at 80 columns: undo that before looking for the diagnosis.
  string(REGEX REPLACE "\n[ ]*" " " flat "${text}")
  if(NOT flat MATCHES "${REGEX}")
    message(FATAL_ERROR "the grader rejected the kernel, but without the expected diagnosis: ${REGEX}")
  endif()
endif()
