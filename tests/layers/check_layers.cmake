# check_layers.cmake -- fails when an #include "..." in the library's
# folders points up a layer (ARCHITECTURE.md): each folder may include its
# own headers and those of the layers below it, never a sibling's or a
# higher layer's; above codec/, only its public header wcodec.h is seen.
#   cmake -DROOT=<source tree> -P check_layers.cmake
# Header names are unique across the tree, so a name says its folder;
# names found in no folder (system headers) are not checked.
cmake_policy(VERSION 3.18)
if(NOT ROOT)
  message(FATAL_ERROR "usage: cmake -DROOT=<source tree> -P check_layers.cmake")
endif()

# Rank of each folder: a folder sees the folders of lower rank.
set(rank_common 0)
set(rank_transform 1)
set(rank_entropy 1)
set(rank_container 1)
set(rank_codec 2)
set(rank_cuda 2)
set(rank_imageio 3)
set(rank_programs 4)
set(folders common transform entropy container codec cuda imageio programs)
set(public_of_codec wcodec.h)

foreach(dir IN LISTS folders)
  file(GLOB_RECURSE files RELATIVE ${ROOT} ${ROOT}/${dir}/*.h ${ROOT}/${dir}/*.cuh)
  foreach(f IN LISTS files)
    get_filename_component(name ${f} NAME)
    set(home_${name} ${dir})
  endforeach()
endforeach()

set(offences 0)
set(checked 0)
foreach(dir IN LISTS folders)
  file(GLOB_RECURSE files RELATIVE ${ROOT}
       ${ROOT}/${dir}/*.c ${ROOT}/${dir}/*.h ${ROOT}/${dir}/*.cu ${ROOT}/${dir}/*.cuh)
  foreach(f IN LISTS files)
    math(EXPR checked "${checked} + 1")
    file(STRINGS ${ROOT}/${f} lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
    foreach(line IN LISTS lines)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]*)\".*" "\\1" inc "${line}")
      get_filename_component(name ${inc} NAME)
      set(home ${home_${name}})
      if(NOT home OR home STREQUAL dir)
        continue()
      endif()
      set(why "")
      if(NOT rank_${home} LESS rank_${dir})
        set(why "${home}/ is not below ${dir}/")
      elseif(home STREQUAL "codec" AND NOT name IN_LIST public_of_codec)
        set(why "above codec/ only its public header wcodec.h may be included")
      endif()
      if(why)
        message(SEND_ERROR "${f}: #include \"${inc}\": ${why}")
        math(EXPR offences "${offences} + 1")
      endif()
    endforeach()
  endforeach()
endforeach()
if(offences GREATER 0)
  message(FATAL_ERROR "${offences} include(s) point up a layer")
endif()
message(STATUS "layers: ${checked} files, every include points down")
