# image/deps/grub2.mk: GRUB's source, from which image/grub-ofnet.sh
# rebuilds the one module bookworm ships broken for Open Firmware network
# boot (ofnet.mod; the ppc64le netboot tree, image/image.mk).  Its version
# must be the host's grub-common's, as the target's modules are.
grub2_SRC := grub2
# pin begin: written by 'make pins' on 2026-12-01 from the
# archive apt uses; apt verified each file against the archive's
# signed index, then pin.sh took the sha256 sums below.
grub2_VERSION := 2.06-13+deb12u2
grub2_SHA256 := \
	851ac9ec78b167db98217d115c88fbd87644d80f3c63cd9d6da682926e819f82 grub2_2.06-13+deb12u2.debian.tar.xz \
	9c0f89f34907e0e50df46401c811347f9559cd405b8c83659042f2c4687622b7 grub2_2.06-13+deb12u2.dsc \
	b79ea44af91b93d17cd3fe80bdae6ed43770678a9a5ae192ccea803ebb657ee1 grub2_2.06.orig.tar.xz \
	b4a3a62a308e97537c21b88ba51174e792bfd77492675eef0cfd75a481e62b22 grub2_2.06.orig.tar.xz.asc
# pin end
$(eval $(call debian_source,grub2))
