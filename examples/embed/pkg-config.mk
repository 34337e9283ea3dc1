# pkg-config.mk - the embedding example built with pkg-config only:
#   PKG_CONFIG_PATH=<prefix>/lib/pkgconfig make -f pkg-config.mk
# (add PKG_CONFIG_FLAGS=--static for a static link of a shared install;
# -lm is for main.c's own fmodf)
CFLAGS ?= -O2 -Wall -Wextra
BUILD ?= build-pkg-config
PKG_CONFIG ?= pkg-config
here := $(dir $(lastword $(MAKEFILE_LIST)))

$(BUILD)/embed: $(here)main.c
	mkdir -p $(BUILD)
	$(CC) -std=c11 $(CFLAGS) -DEMBED_DEFAULT_ASSET='"$(abspath $(here))/stick.gltf"' \
	    $$($(PKG_CONFIG) $(PKG_CONFIG_FLAGS) --cflags blendwerk) -o $@ $< \
	    $$($(PKG_CONFIG) $(PKG_CONFIG_FLAGS) --libs blendwerk) -lm
