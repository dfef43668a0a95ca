/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef TEST_EAL_H
#define TEST_EAL_H

/*
 * The end of a test program's EAL: rte_eal_cleanup(), then the runtime
 * directory EAL made for its --file-prefix (/var/run/dpdk/PREFIX: config,
 * fbarray files), which EAL leaves behind. Tests clean up what they start.
 */

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>

static inline void
test_eal_cleanup(void)
{
	char dir[PATH_MAX], path[PATH_MAX + 256];
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	d = opendir(dir);
	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		(void)unlink(path);
	}
	closedir(d);
	(void)rmdir(dir);
}

#endif /* TEST_EAL_H */
