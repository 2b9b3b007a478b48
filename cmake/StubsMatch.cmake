# The test `stubs.match`: each learner's file against its pristine copy in tests/stubs/, which the
# stub tests compile (see workbook_add_graded).
#   cmake -DROOT=<repository> "-DPAIRS=<learner's file>=<pristine copy>;..." -P StubsMatch.cmake
# A learner's edits are expected here: a difference then reports the test skipped, naming the
# files. In CI (environment WB_CI=1, set by .ci/run on a fresh clone) a difference fails: a stub
# was changed without its copy, or the copy without the stub.
set(differ "")
list(LENGTH PAIRS count)
foreach(pair IN LISTS PAIRS)
  string(REPLACE "=" ";" pair "${pair}")
  list(GET pair 0 learner)
  list(GET pair 1 pristine)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${ROOT}/${learner}" "${ROOT}/${pristine}"
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(NOT rc EQUAL 0)
    list(APPEND differ "${learner} (pristine: ${pristine})")
  endif()
endforeach()
if(NOT differ)
  message("stubs: all ${count} learner's files match their pristine copies in tests/stubs/")
  return()
endif()
list(JOIN differ ", " differ)
if("$ENV{WB_CI}")
  message(FATAL_ERROR "stubs: these differ from their pristine copies: ${differ}. Changed a stub? Copy it "
                      "over its pristine copy in tests/stubs/ (or the other way round) and commit both.")
endif()
message("verdict: skipped: these differ from their pristine copies (your edits, as expected): ${differ}; "
        "the stub tests use the copies, and CI (WB_CI=1) checks that they match")
