# TileInstall.cmake - install headers, libraries, tools and the CMake package
# so that other projects can find_package(Tile).
include(CMakePackageConfigHelpers)
