/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

#ifndef FL_FDB_H
#define FL_FDB_H

/*
 * The learning table of --switch (a bridge's forwarding database, IEEE
 * 802.1D's filtering database without ageing): station MAC -> the port it
 * was last seen on. Open addressing with linear probing in a fixed table,
 * filled to 3/4 at most (a station past that is not learned, its frames are
 * flooded); no allocation, pure logic. One lcore reads and writes it.
 */

#include <stdbool.h>
#include <stdint.h>

#define FL_FDB_SIZE 4096u                      /* slots, a power of two */
#define FL_FDB_MAX (FL_FDB_SIZE / 4 * 3)       /* stations learned at most */

struct fl_fdb_entry {
	uint64_t key;          /* the MAC in the low 48 bits, bit 48 set: 0 is an empty slot */
	uint16_t port;         /* the switch's port index */
};

struct fl_fdb {
	struct fl_fdb_entry e[FL_FDB_SIZE];
	uint32_t n;
};

enum fl_fdb_learn {
	FL_FDB_KNOWN,          /* on this port already */
	FL_FDB_NEW,            /* learned */
	FL_FDB_MOVED,          /* was on another port, now on this one */
	FL_FDB_FULL,           /* not learned: the table is full */
	FL_FDB_GROUP,          /* a group (multicast) address: never a source, not learned */
};

/* A group address (broadcast or multicast): the I/G bit of the first byte. */
static inline bool
fl_mac_is_group(const uint8_t *mac)
{
	return (mac[0] & 1) != 0;
}

void fl_fdb_init(struct fl_fdb *t);
/* @mac was seen as the source of a frame received on @port. */
enum fl_fdb_learn fl_fdb_learn(struct fl_fdb *t, const uint8_t *mac, uint16_t port);
/* The port of station @mac, or -1 when unknown. */
int fl_fdb_lookup(const struct fl_fdb *t, const uint8_t *mac);

#endif /* FL_FDB_H */
