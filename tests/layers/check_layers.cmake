# check_layers.cmake -- fails when an #include "..." in the library's
# folders points up a layer (ARCHITECTURE.md): each folder may include its
# own headers and those of the layers below it, never a sibling's or a
# higher layer's; above codec/, only the public headers are seen.
#   cmake -DROOT=<source tree> -P check_layers.cmake
# Header names are unique across the tree, so a name says its folder;
# names found in no folder (system headers) are not checked.
cmake_policy(VERSION 3.18)
if(NOT ROOT)
  message(FATAL_ERROR "usage: cmake -DROOT=<source tree> -P check_layers.cmake")
endif()

# What each folder may include besides its own headers (ARCHITECTURE.md):
# the layers below it. Siblings (transform, entropy, container; codec and
# cuda) never include each other: what both backends need (the code-block
# layout, the host's entropy stage) is stage/'s, below them. Above codec/,
# the library is seen only through its public headers. The programs that
# live in cuda/ only because they include the CUDA runtime (cuda_programs:
# the chain benchmark and a test of the public API) stand in the program
# layer: they may include what programs/ may, and programs/' own headers.
set(folders common transform entropy container stage codec cuda imageio programs)
set(below_common "")
set(below_transform common)
set(below_entropy common)
set(below_container common)
set(below_stage common transform entropy container)
set(below_codec common transform entropy container stage)
set(below_cuda common transform entropy container stage)
set(below_imageio common)
set(below_programs imageio)
set(public_headers wcodec.h wcodec_types.h)
set(public_users imageio programs)
set(cuda_programs cuda/bench_chain.cu cuda/test_device_memory.cu)

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
      if((dir IN_LIST public_users OR f IN_LIST cuda_programs) AND name IN_LIST public_headers)
        set(why "")
      elseif(f IN_LIST cuda_programs)
        if(NOT home IN_LIST below_programs AND NOT home STREQUAL "programs")
          set(why "${f} is a program: it may include cuda/'s headers, programs/', those of: ${below_programs} (and the public wcodec.h)")
        endif()
      elseif(NOT home IN_LIST below_${dir})
        set(why "${dir}/ may include only its own headers and those of: ${below_${dir}}")
        if(dir IN_LIST public_users)
          string(APPEND why " (and the public wcodec.h)")
        endif()
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
