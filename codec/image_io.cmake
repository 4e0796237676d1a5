# Image I/O (PNG through libpng, binary PGM/PPM) as its own object library:
# it depends only on common/ and libpng, so its tests build while the rest of
# codec/ is being written, and the codec library links these objects later.
add_library(wc_image_io OBJECT image_png.c image_pnm.c)
target_include_directories(wc_image_io PUBLIC ${CMAKE_CURRENT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/common)
target_link_libraries(wc_image_io PUBLIC PNG::PNG wc_common)
target_compile_definitions(wc_image_io PRIVATE WC_BUILDING_LIBRARY)
set_target_properties(wc_image_io PROPERTIES POSITION_INDEPENDENT_CODE ON)

# The image I/O that only the command (and tests) link, never libwcodec:
# TIFF through libtiff, PNG metadata, any file with its metadata
# (image_ext.h). It calls the library's public file functions.
add_library(wc_image_ext OBJECT image_tiff.c image_exif.c image_meta_png.c image_file.c)
target_include_directories(wc_image_ext PUBLIC ${CMAKE_CURRENT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/common)
target_link_libraries(wc_image_ext PUBLIC TIFF::TIFF ZLIB::ZLIB wc_common)
