/* gltf_std_doc.h - the small glTF document the glTF tests load over and
 * over (test_gltf.c, test_io_safety.c): two joints "a" -> "b", one
 * animation "go" with translation and rotation keys on "b" at times 0 and
 * 1, one 64-byte buffer whose uri is the placeholder @URI@.
 *
 * std_bytes is that buffer: times {0, 1}, t {0,0,0} -> {1,2,3}, r
 * identity -> (0, 1, 0, 0). */
#ifndef BW_TEST_GLTF_STD_DOC_H
#define BW_TEST_GLTF_STD_DOC_H

#include <string.h>

static void std_bytes(unsigned char out[64])
{
    const float f[16] = {0, 1, 0, 0, 0, 1, 2, 3, 0, 0, 0, 1, 0, 1, 0, 0};
    memcpy(out, f, 64);
}

static const char STD_DOC[] =
    "{\"asset\":{\"version\":\"2.0\"},"
    "\"nodes\":[{\"name\":\"a\",\"children\":[1]},{\"name\":\"b\"}],"
    "\"skins\":[{\"joints\":[0,1]}],"
    "\"animations\":[{\"name\":\"go\",\"samplers\":[{\"input\":0,\"output\":1},{\"input\":0,\"output\":2}],"
    "\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"translation\"}},"
    "{\"sampler\":1,\"target\":{\"node\":1,\"path\":\"rotation\"}}]}],"
    "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"},"
    "{\"bufferView\":1,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"},"
    "{\"bufferView\":2,\"componentType\":5126,\"count\":2,\"type\":\"VEC4\"}],"
    "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":8},"
    "{\"buffer\":0,\"byteOffset\":8,\"byteLength\":24},"
    "{\"buffer\":0,\"byteOffset\":32,\"byteLength\":32}],"
    "\"buffers\":[{\"byteLength\":64,\"uri\":\"@URI@\"}]}";

#endif
