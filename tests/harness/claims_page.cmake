# docs/claims.md must equal `dpx claims --markdown` of the committed full-run results: the page
# is regenerable from a checkout (scripts/run.sh --full refreshes docs/results/full and the page).
execute_process(
  COMMAND ${DPX} claims --experiments ${SOURCE_DIR}/experiments --results
          ${SOURCE_DIR}/docs/results/full --label docs/results/full --markdown --out ${OUT}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "dpx claims failed (exit ${rc})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT} ${SOURCE_DIR}/docs/claims.md
                RESULT_VARIABLE differs)
if(NOT differs EQUAL 0)
  message(FATAL_ERROR "docs/claims.md is stale: it differs from ${OUT}, which dpx claims made "
                      "from docs/results/full (regenerate: dpx claims --results docs/results/full "
                      "--label docs/results/full --markdown --out docs/claims.md)")
endif()
