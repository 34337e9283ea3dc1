-- hello.lua - placeholder until the Lua API lands.
print("blendwerk: the Lua API is not available yet")
