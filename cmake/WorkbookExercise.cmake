# workbook_add_exercise(): one call adds an exercise (exercises/NN-name), graded exactly like a
# chapter: it calls workbook_add_graded() (WorkbookChapter.cmake), which does the work.
#
#   workbook_add_exercise(<NN-name>
#     TITLE "<words>"         # shown in the grader's summary
#     KERNEL <file.cu>        # the learner's file in exercises/<NN-name>/; same name in solutions/exercises/<NN-name>/
#     [MUTANTS <name.patch|name.cu>...]   # planted bugs in tests/mutants/exercises/<NN-name>/: each must be rejected
#     [ACCEPTED <name.patch|name.cu>...]  # correct variants in tests/accepted/exercises/<NN-name>/: each must pass
#     [INSTRUMENT] [TORCH]    # as for a chapter (workbook_add_chapter)
#     [ANCHORS]               # the grader times CUB and cuBLAS anchors: links wb::library_anchors_<backend>
#     [TORCH_ANCHORS]         # ... and PyTorch's ops, where libtorch with CUDA is found ("anchor not
#                             # available" otherwise): links wb::torch_anchors_<backend> (grader/anchors)
#     [CUDA_ONLY "<reason>"]) # the exercise needs what only nvcc has (e.g. <mma.h>): on the CPU backend
#                             # its grader and every test report "skipped: <reason>"
#
# The exercise's id is x<NN-name> (x01-histogram): its grader target is grade-x01-histogram-<backend>,
# its tests x01-histogram.<backend>.{solution,stub,mutants.<m>,accepted.<a>}, labelled `exercise`,
# `<id>` and `<backend>`, and `bash cmake/workbook.sh grade x01` grades it. Exercises are listed
# after the chapters in the catalog (the grade command's list) and in the docs, in the order
# they are added (exercises/CMakeLists.txt, included after the chapters).
function(workbook_add_exercise name)
  cmake_parse_arguments(PARSE_ARGV 1 EX "ANCHORS;TORCH_ANCHORS" "CUDA_ONLY;TITLE" "MUTANTS;ACCEPTED")
  set(id x${name})
  set(all_backends ${WB_BACKENDS})
  if(EX_CUDA_ONLY)
    list(REMOVE_ITEM WB_BACKENDS cpu)  # in this function's scope: workbook_add_graded builds CUDA only
  endif()
  workbook_add_graded(${id} SOURCE_DIR exercises/${name} SOLUTION_DIR solutions/exercises/${name}
                      VARIANT_DIR exercises/${name} TITLE "${EX_TITLE}" MUTANTS ${EX_MUTANTS}
                      ACCEPTED ${EX_ACCEPTED} ${EX_UNPARSED_ARGUMENTS})
  set(WB_BACKENDS ${all_backends})
  foreach(backend IN LISTS WB_BACKENDS)
    set(names solution stub)
    foreach(kind MUTANTS ACCEPTED)
      string(TOLOWER "${kind}" dir)
      foreach(file IN LISTS EX_${kind})
        get_filename_component(stem "${file}" NAME_WE)
        list(APPEND names ${dir}.${stem})
      endforeach()
    endforeach()
    if(EX_CUDA_ONLY AND backend STREQUAL "cpu")
      list(REMOVE_ITEM names solution stub)  # _wb_skipped_chapter adds those two itself
      _wb_skipped_chapter(${id} cpu "${EX_TITLE}" "${EX_CUDA_ONLY}" "${names}")
      list(TRANSFORM names PREPEND ${id}.cpu.)
      set_tests_properties(${id}.cpu.solution ${id}.cpu.stub ${names} PROPERTIES LABELS "exercise;${id};cpu")
      continue()
    endif()
    if(NOT TARGET wb_${id}_grade_${backend})
      continue()  # reported skipped (e.g. TORCH without libtorch): nothing to link
    endif()
    if(EX_ANCHORS)
      target_link_libraries(wb_${id}_grade_${backend} PUBLIC wb::library_anchors_${backend})
    endif()
    if(EX_TORCH_ANCHORS)
      target_link_libraries(wb_${id}_grade_${backend} PUBLIC wb::torch_anchors_${backend})
    endif()
    # Label the tests `exercise` (workbook_add_graded labels them `chapter`).
    list(TRANSFORM names PREPEND ${id}.${backend}.)
    set_tests_properties(${names} PROPERTIES LABELS "exercise;${id};${backend}")
  endforeach()
  set_property(GLOBAL APPEND PROPERTY WB_CHAPTERS ${id})
  set_property(GLOBAL PROPERTY WB_UNIT_DIR_${id} exercises/${name})  # for the docs
endfunction()
