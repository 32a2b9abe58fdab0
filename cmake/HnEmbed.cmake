# hn_embed_text(<out_cc> <namespace> <symbol> <input file>)
#   Generates a .cc defining `const char* const <symbol>` with the file's text,
#   regenerated whenever the file changes. What it embeds is recorded in the
#   global property HN_EMBED:<out_cc> ("<namespace>;<symbol>;<input>") so that
#   another directory can generate its own copy (tests/fuzz does: a custom
#   command's output carries the build order of the target that owns it).
function(hn_embed_text out_cc ns symbol input)
  set(script ${PROJECT_SOURCE_DIR}/cmake/HnEmbedScript.cmake)
  add_custom_command(
    OUTPUT ${out_cc}
    COMMAND ${CMAKE_COMMAND} -DIN=${input} -DOUT=${out_cc} -DNS=${ns} -DSYM=${symbol} -P ${script}
    DEPENDS ${input} ${script}
    COMMENT "Embedding ${input}")
  set_property(GLOBAL PROPERTY "HN_EMBED:${out_cc}" "${ns};${symbol};${input}")
endfunction()
