# TileInstall.cmake - install the tools, libraries, headers and a CMake package
# so that another project can `find_package(Tile)` and link the dialect
# (Tile::TileDialect, Tile::TileTransforms) or the C API (Tile::TileCAPI).
include(CMakePackageConfigHelpers)
include(GNUInstallDirs)

set(TILE_INSTALL_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tile)

foreach(lib TileDialect TileTransforms)
  target_include_directories(${lib} INTERFACE
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  install(TARGETS ${lib} EXPORT TileTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endforeach()

# Hand-written headers and the headers TableGen generated for them.
foreach(part dialect passes)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${part}/include/tile
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
    FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
  install(DIRECTORY ${PROJECT_BINARY_DIR}/${part}/include/tile
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
    FILES_MATCHING PATTERN "*.inc"
    PATTERN "CMakeFiles" EXCLUDE)
endforeach()

install(EXPORT TileTargets NAMESPACE Tile::
  DESTINATION ${TILE_INSTALL_PACKAGE_DIR})

configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/TileConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/TileConfig.cmake
  INSTALL_DESTINATION ${TILE_INSTALL_PACKAGE_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/TileConfigVersion.cmake
  VERSION 0.1.0 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/TileConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/TileConfigVersion.cmake
  DESTINATION ${TILE_INSTALL_PACKAGE_DIR})
