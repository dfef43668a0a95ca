/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/* The learning table of --switch (fdb.h). */

#include <string.h>

#include "fdb.h"

static inline uint64_t
mac_key(const uint8_t *mac)
{
	uint64_t k = 0;

	for (int i = 0; i < 6; i++)
		k = k << 8 | mac[i];
	return k | 1ull << 48;
}

static inline uint32_t
slot_of(uint64_t key)
{
	return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 52) & (FL_FDB_SIZE - 1);
}

void
fl_fdb_init(struct fl_fdb *t)
{
	memset(t, 0, sizeof(*t));
}

/* the slot holding @key, or the empty slot where it would go */
static uint32_t
find(const struct fl_fdb *t, uint64_t key)
{
	uint32_t i = slot_of(key);

	/* never full: at most FL_FDB_MAX < FL_FDB_SIZE slots are used */
	while (t->e[i].key != 0 && t->e[i].key != key)
		i = (i + 1) & (FL_FDB_SIZE - 1);
	return i;
}

enum fl_fdb_learn
fl_fdb_learn(struct fl_fdb *t, const uint8_t *mac, uint16_t port)
{
	uint64_t key;
	uint32_t i;

	if (fl_mac_is_group(mac))
		return FL_FDB_GROUP;
	key = mac_key(mac);
	i = find(t, key);
	if (t->e[i].key == key) {
		if (t->e[i].port == port)
			return FL_FDB_KNOWN;
		t->e[i].port = port;
		return FL_FDB_MOVED;
	}
	if (t->n >= FL_FDB_MAX)
		return FL_FDB_FULL;
	t->e[i].key = key;
	t->e[i].port = port;
	t->n++;
	return FL_FDB_NEW;
}

int
fl_fdb_lookup(const struct fl_fdb *t, const uint8_t *mac)
{
	uint64_t key = mac_key(mac);
	uint32_t i = find(t, key);

	return t->e[i].key == key ? t->e[i].port : -1;
}
