# Runs one grader for the test suite and checks its verdict (see workbook_add_chapter): the JSON
# document the grader writes to $WB_VERDICT_FILE (docs/verdict-schema.md), never its printed text.
#   cmake -DEXE=<grader> -DVERDICT=<file.json> -DEXPECT=pass|fail [-DREGEX=<regex>] -P RunGrader.cmake
# pass: the verdict's kind is "correct" and the grader exits with 0; with a REGEX (an accepted
#       variant's `expect:`), it also matches "verdict: correct", then "not_checked: <item>",
#       "notes: <item>" and "speed: <line>", one per line.
# fail: the grader exits non-zero, the kind is neither "correct" nor "skipped", and REGEX matches
#       the verdict's text: "verdict: <kind>: <detail>", then its cause, the report behind it, fix, case, other causes,
#       what was not checked, speed and crash, one per line. The grader's printed log is shown, never
#       read: a diagnosis the learner would not see in the verdict does not count.
# A verdict of kind "skipped" prints "verdict: skipped: <cause>", which ctest's
# SKIP_REGULAR_EXPRESSION reports as skipped.
file(REMOVE "${VERDICT}")
get_filename_component(verdict_dir "${VERDICT}" DIRECTORY)
file(MAKE_DIRECTORY "${verdict_dir}")
execute_process(COMMAND "${CMAKE_COMMAND}" -E env "WB_VERDICT_FILE=${VERDICT}" "${EXE}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT EXISTS "${VERDICT}")
  message(FATAL_ERROR "the grader ended (exit status ${rc}) without writing its verdict to ${VERDICT}")
endif()
file(READ "${VERDICT}" doc)
string(JSON kind ERROR_VARIABLE bad GET "${doc}" kind)
if(bad)
  message(FATAL_ERROR "the grader's verdict ${VERDICT} is not a verdict document: ${bad}")
endif()

# A text field of the verdict ("" when absent or null); an array's items one per line.
function(_wb_verdict_text out)
  string(JSON type ERROR_VARIABLE missing TYPE "${doc}" ${ARGN})
  set(text "")
  if(type STREQUAL "STRING")
    string(JSON text GET "${doc}" ${ARGN})
  elseif(type STREQUAL "ARRAY")
    string(JSON n LENGTH "${doc}" ${ARGN})
    if(n GREATER 0)
      math(EXPR last "${n} - 1")
      foreach(i RANGE ${last})
        string(JSON item GET "${doc}" ${ARGN} ${i})
        string(APPEND text "${item}\n")
      endforeach()
    endif()
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

_wb_verdict_text(detail detail)
_wb_verdict_text(cause cause)
if(kind STREQUAL "skipped")
  message("verdict: skipped: ${cause}")
  return()  # ctest's SKIP_REGULAR_EXPRESSION reports it as skipped
endif()
if(EXPECT STREQUAL "pass")
  if(NOT rc EQUAL 0 OR NOT kind STREQUAL "correct")
    message(FATAL_ERROR "expected the grader to accept this kernel; its verdict is \"${kind}\" (exit status ${rc})")
  endif()
  if(NOT REGEX STREQUAL "")  # an accepted variant's `expect:`: what the passing verdict must say too
    set(text "verdict: ${kind}\n")
    foreach(field not_checked notes speed)
      _wb_verdict_text(t ${field})
      string(REGEX REPLACE "([^\n]+)" "${field}: \\1" t "${t}")
      string(APPEND text "${t}")
    endforeach()
    if(NOT text MATCHES "${REGEX}")
      message(FATAL_ERROR "the grader accepted the kernel, but its verdict does not say: ${REGEX}\nits verdict:\n${text}")
    endif()
  endif()
  return()
endif()

if(rc EQUAL 0 OR kind STREQUAL "correct")
  message(FATAL_ERROR "expected the grader to reject this kernel, but it passed (verdict \"${kind}\", exit status ${rc})")
endif()
set(text "verdict: ${kind}")
if(NOT detail STREQUAL "")
  string(APPEND text ": ${detail}")
endif()
string(APPEND text "\n")
foreach(field cause cause_report fix case other_causes not_checked notes speed)
  _wb_verdict_text(t ${field})
  if(NOT t STREQUAL "")
    string(APPEND text "${t}\n")
  endif()
endforeach()
string(JSON crash_type ERROR_VARIABLE none TYPE "${doc}" crash)
if(crash_type STREQUAL "OBJECT")
  _wb_verdict_text(signal crash signal)
  _wb_verdict_text(why crash explanation)
  string(APPEND text "${signal}: ${why}\n")
endif()
if(text MATCHES "${REGEX}")
  return()
endif()
message(FATAL_ERROR "the grader rejected the kernel, but without the expected diagnosis: ${REGEX}\nits verdict:\n${text}")
