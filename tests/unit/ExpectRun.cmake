# Runs a test executable and checks both its exit code and its output, which ctest's
# PASS_REGULAR_EXPRESSION alone cannot (it ignores the exit code).
#   cmake -DEXE=<exe> [-DARG=<argument>] -DRC=<expected exit code> -DREGEX=<regex> -P ExpectRun.cmake
# RC_MATCHES=<regex> instead of RC: the exit status must match it (a process killed by a signal
# has the signal's name as its status, e.g. "Segmentation fault").
# The output is searched with newlines turned into spaces. NOT_REGEX=<regex>: it must not match.
# EMULATOR="<program> <arguments>" runs EXE under it (a cross-compiled test under qemu-user).
# KIND=<kind> VERDICT=<file.json>: EXE writes its verdict document there ($WB_VERDICT_FILE), and
# the document's kind must be <kind>.
separate_arguments(emulator UNIX_COMMAND "${EMULATOR}")
set(env)
if(DEFINED KIND)
  file(REMOVE "${VERDICT}")
  get_filename_component(verdict_dir "${VERDICT}" DIRECTORY)
  file(MAKE_DIRECTORY "${verdict_dir}")
  set(env "${CMAKE_COMMAND}" -E env "WB_VERDICT_FILE=${VERDICT}")
endif()
execute_process(COMMAND ${env} ${emulator} "${EXE}" ${ARG} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(DEFINED KIND)
  if(NOT EXISTS "${VERDICT}")
    message(FATAL_ERROR "expected a verdict document in ${VERDICT}; there is none")
  endif()
  file(READ "${VERDICT}" doc)
  string(JSON got ERROR_VARIABLE bad GET "${doc}" kind)
  if(bad OR NOT got STREQUAL KIND)
    message(FATAL_ERROR "expected the verdict's kind to be \"${KIND}\", got \"${got}\" ${bad}")
  endif()
endif()
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
