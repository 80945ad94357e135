/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --web.config.file: the exporter's access control in the format of the Prometheus exporters'
 * own (node_exporter's --web.config.file): a TLS certificate and key, and basic-auth users with
 * bcrypt hashes. Only what foliostat implements is accepted: any other key is an error, so that
 * a setting believed in force (client certificates, say) never silently is not.
 */
#ifndef FS_WEB_CONFIG_H
#define FS_WEB_CONFIG_H

#include <stddef.h>

#define FS_WEB_MAX_USERS 64
/* A web config is a few lines; libyaml's time grows fast with nesting, so a file of megabytes
 * could hold start-up for minutes. */
#define FS_WEB_MAX_BYTES (64 * 1024)
/* Each check of a password not yet remembered costs 2^cost bcrypt rounds in the server's one
 * thread: cost 14 is about a second on today's CPUs, 31 would be days. */
#define FS_WEB_MAX_BCRYPT_COST 14

struct web_user {
	char *name;
	char *hash; /* bcrypt: $2a$, $2b$ or $2y$ */
};

struct web_config {
	char *cert_file; /* NULL: plain HTTP; paths relative to the config file's directory */
	char *key_file;
	struct web_user users[FS_WEB_MAX_USERS];
	int nr_users; /* 0: no authentication */
};

/*
 * Parse a web configuration (YAML) from text; `dir` is the config file's directory, which
 * relative paths are taken from. Returns 0, or -1 with the reason in err ("line N: ...").
 */
int web_config_parse(const char *text, size_t len, const char *dir, struct web_config *config,
		     char *err, size_t err_len);
/* Read and parse FILE. Returns 0, 1 (unreadable: "failed to read ..."), or 2 (invalid), with
 * the message in err. */
int web_config_load(const char *path, struct web_config *config, char *err, size_t err_len);
void web_config_free(struct web_config *config);

#endif /* FS_WEB_CONFIG_H */
