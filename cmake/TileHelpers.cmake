# TileHelpers.cmake - CMake functions shared by the tile project's folders.
#
# tile_add_doc: generate Markdown reference docs from ODS into
# <build>/docs/<path>.md; the `tile-doc` target builds all of them and
# `tile-update-docs` copies them into the source tree's docs/reference/.

add_custom_target(tile-doc)
add_custom_target(tile-update-docs
  COMMAND ${CMAKE_COMMAND} -E copy_directory ${PROJECT_BINARY_DIR}/docs/reference
          ${PROJECT_SOURCE_DIR}/docs/reference
  DEPENDS tile-doc
  COMMENT "Copying generated reference docs into docs/reference")

# tile_add_doc(<td-name> <output-path> <tblgen-args>...)
function(tile_add_doc td_name out_path)
  set(LLVM_TARGET_DEFINITIONS ${td_name}.td)
  mlir_tablegen(${td_name}Doc.md ${ARGN})
  set(generated ${CMAKE_CURRENT_BINARY_DIR}/${td_name}Doc.md)
  set(dst ${PROJECT_BINARY_DIR}/docs/reference/${out_path}.md)
  add_custom_command(OUTPUT ${dst}
    COMMAND ${CMAKE_COMMAND} -E copy ${generated} ${dst}
    DEPENDS ${generated})
  string(REPLACE "/" "_" target ${out_path})
  add_custom_target(${target}DocGen DEPENDS ${dst})
  add_dependencies(tile-doc ${target}DocGen)
endfunction()
