# cmake/install.cmake - install rules (included when BW_INSTALL is ON).
#
#   <prefix>/include/blendwerk/*.h           the public headers, version.h, lua_blendwerk.h
#   <prefix>/lib/libblendwerk.{a,so}         blendwerk::blendwerk (the core)
#   <prefix>/lib/libblendwerk_lua.{a,so}     blendwerk::lua (luaopen_blendwerk for a host)
#   <prefix>/bin/blendwerk                   blendwerk::cli
#   <prefix>/lib/cmake/blendwerk/            blendwerkConfig.cmake, ...Version.cmake, ...Targets.cmake
#   <prefix>/lib/pkgconfig/                  blendwerk.pc, blendwerk-lua.pc
#   <prefix>/lib/lua/5.4/blendwerk.so        the Lua module (BW_INSTALL_LUA_CMODDIR)
#   <prefix>/share/blendwerk/types/          LuaCATS annotations for lua-language-server
#
# With BW_LUA_MODULE_ONLY (luarocks) only the module is installed.
if(BW_LUA_MODULE_ONLY)
  install(TARGETS blendwerk_module LIBRARY DESTINATION ${BW_INSTALL_LUA_CMODDIR})
  return()
endif()

include(CMakePackageConfigHelpers)

install(TARGETS ${BW_CORE_TARGET} ${BW_LUA_TARGET} blendwerk EXPORT blendwerkTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# blendwerk::module: the Lua module, for consumers that want its path
# ($<TARGET_FILE:blendwerk::module>, e.g. to set LUA_CPATH in a test)
install(TARGETS blendwerk_module EXPORT blendwerkTargets LIBRARY DESTINATION ${BW_INSTALL_LUA_CMODDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/blendwerk DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/include/blendwerk/version.h ${PROJECT_SOURCE_DIR}/bindings/lua_blendwerk.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/blendwerk)

install(FILES ${PROJECT_SOURCE_DIR}/types/blendwerk.lua DESTINATION ${CMAKE_INSTALL_DATADIR}/blendwerk/types)

install(EXPORT blendwerkTargets NAMESPACE blendwerk:: DESTINATION ${BW_INSTALL_CMAKEDIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/blendwerkConfig.cmake.in ${PROJECT_BINARY_DIR}/blendwerkConfig.cmake
  INSTALL_DESTINATION ${BW_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR BW_INSTALL_LUA_CMODDIR)
# 0.x: a new minor version may break the API, so only the same minor matches.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(BW_COMPATIBILITY SameMinorVersion)
else()
  set(BW_COMPATIBILITY SameMajorVersion)
endif()
write_basic_package_version_file(${PROJECT_BINARY_DIR}/blendwerkConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY ${BW_COMPATIBILITY})
install(FILES ${PROJECT_BINARY_DIR}/blendwerkConfig.cmake ${PROJECT_BINARY_DIR}/blendwerkConfigVersion.cmake
  DESTINATION ${BW_INSTALL_CMAKEDIR})

# pkg-config. A static libblendwerk.a records no dependencies, so then cJSON,
# libm and pthreads are public (a plain `pkg-config --libs blendwerk` links);
# a shared libblendwerk.so carries them, so they are private (needed only
# with --static). Lua is a dependency of the bindings alone: blendwerk-lua.pc.
foreach(dir LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${dir}}")
    set(BW_PC_${dir} "${CMAKE_INSTALL_${dir}}")
  else()
    set(BW_PC_${dir} "\${prefix}/${CMAKE_INSTALL_${dir}}")
  endif()
endforeach()
if(IS_ABSOLUTE "${BW_INSTALL_LUA_CMODDIR}")
  set(BW_PC_CMODDIR "${BW_INSTALL_LUA_CMODDIR}")
else()
  set(BW_PC_CMODDIR "\${prefix}/${BW_INSTALL_LUA_CMODDIR}")
endif()
# prefix relative to the .pc file, so an install moved with
# `cmake --install --prefix` (or the folder itself) still resolves
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(BW_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH BW_PC_PREFIX "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
  string(REGEX REPLACE "/$" "" BW_PC_PREFIX "${BW_PC_PREFIX}")
  set(BW_PC_PREFIX "\${pcfiledir}/${BW_PC_PREFIX}")
endif()
set(BW_PC_SYSLIBS "")
if(MATH_LIBRARY)
  set(BW_PC_SYSLIBS "-lm")
endif()
string(APPEND BW_PC_SYSLIBS " ${CMAKE_THREAD_LIBS_INIT}")
string(STRIP "${BW_PC_SYSLIBS}" BW_PC_SYSLIBS)
if(BUILD_SHARED_LIBS)
  set(BW_PC_REQUIRES "")
  set(BW_PC_REQUIRES_PRIVATE "libcjson")
  set(BW_PC_LIBS "")
  set(BW_PC_LIBS_PRIVATE "${BW_PC_SYSLIBS}")
else()
  set(BW_PC_REQUIRES ", libcjson")
  set(BW_PC_REQUIRES_PRIVATE "")
  set(BW_PC_LIBS " ${BW_PC_SYSLIBS}")
  set(BW_PC_LIBS_PRIVATE "")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/blendwerk.pc.in ${PROJECT_BINARY_DIR}/blendwerk.pc @ONLY)
configure_file(${PROJECT_SOURCE_DIR}/cmake/blendwerk-lua.pc.in ${PROJECT_BINARY_DIR}/blendwerk-lua.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/blendwerk.pc ${PROJECT_BINARY_DIR}/blendwerk-lua.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
