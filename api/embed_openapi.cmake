# Writes a C file holding openapi.yaml as a byte array, so GET /v1/openapi.yaml
# serves the document the binary was built with. Run at build time by
# api/CMakeLists.txt. Inputs: INPUT, OUTPUT.
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" hex_len)
math(EXPR len "${hex_len} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE "${OUTPUT}.tmp"
  "/* Generated from openapi.yaml by api/embed_openapi.cmake; do not edit. */\n"
  "#include <stddef.h>\n"
  "const char rig_openapi_yaml[] = {${bytes}0};\n"
  "const size_t rig_openapi_yaml_len = ${len};\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
