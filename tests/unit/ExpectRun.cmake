# Runs a test executable and checks both its exit code and its output, which ctest's
# PASS_REGULAR_EXPRESSION alone cannot (it ignores the exit code).
#   cmake -DEXE=<exe> [-DARG=<argument>] -DRC=<expected exit code> -DREGEX=<regex> -P ExpectRun.cmake
# RC_MATCHES=<regex> instead of RC: the exit status must match it (a process killed by a signal
# has the signal's name as its status, e.g. "Segmentation fault").
# The output is searched with newlines turned into spaces. NOT_REGEX=<regex>: it must not match.
# EMULATOR="<program> <arguments>" runs EXE under it (a cross-compiled test under qemu-user).
separate_arguments(emulator UNIX_COMMAND "${EMULATOR}")
execute_process(COMMAND ${emulator} "${EXE}" ${ARG} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(DEFINED RC_MATCHES)
  if(NOT "${rc}" MATCHES "${RC_MATCHES}")
    message(FATAL_ERROR "expected an exit status matching ${RC_MATCHES}, got ${rc}")
  endif()
elseif(NOT "${rc}" STREQUAL "${RC}")
  message(FATAL_ERROR "expected exit code ${RC}, got ${rc}")
endif()
string(REGEX REPLACE "\n[ ]*" " " flat "${out}${err}")
if(NOT flat MATCHES "${REGEX}")
  message(FATAL_ERROR "the output does not match: ${REGEX}")
endif()
if(DEFINED NOT_REGEX AND flat MATCHES "${NOT_REGEX}")
  message(FATAL_ERROR "the output matches what it must not: ${NOT_REGEX}")
endif()
