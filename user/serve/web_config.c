// SPDX-License-Identifier: GPL-2.0
/* --web.config.file, parsed with libyaml (see web_config.h). */
#define _GNU_SOURCE /* asprintf */
#include "web_config.h"

#include <crypt.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* Keys of the exporters' format that foliostat does not implement: named as such, not as
 * typos. */
static const char *const unsupported_tls_keys[] = {"cert",
						   "key",
						   "client_auth_type",
						   "client_ca_file",
						   "client_ca",
						   "cipher_suites",
						   "curve_preferences",
						   "min_version",
						   "max_version",
						   "prefer_server_cipher_suites",
						   "client_allowed_sans",
						   NULL};

struct parse {
	yaml_document_t *doc;
	const char *dir;
	struct web_config *config;
	char *err;
	size_t err_len;
};

static int fail_at(struct parse *p, const yaml_node_t *node, const char *fmt, ...)
{
	char reason[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	snprintf(p->err, p->err_len, "line %lu: %s", (unsigned long)node->start_mark.line + 1,
		 reason);
	return -1;
}

static bool is_null(const yaml_node_t *node)
{
	const char *v = (const char *)node->data.scalar.value;

	if (node->type != YAML_SCALAR_NODE || node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	return !*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") ||
	       !strcmp(v, "NULL");
}

/* A scalar's text; -1 for anything else, or for a NUL inside it. */
static int scalar(struct parse *p, const yaml_node_t *node, const char *what, const char **out)
{
	if (node->type != YAML_SCALAR_NODE || is_null(node))
		return fail_at(p, node, "%s: expected a string", what);
	if (strlen((const char *)node->data.scalar.value) != node->data.scalar.length)
		return fail_at(p, node, "%s: a NUL byte in the string", what);
	*out = (const char *)node->data.scalar.value;
	return 0;
}

/* The mapping's pairs as key text and value node; -1 for a key that is not a string. */
#define for_each_pair(doc, map, pair)                                  \
	for (yaml_node_pair_t *pair = (map)->data.mapping.pairs.start; \
	     pair < (map)->data.mapping.pairs.top; pair++)

/* A pair's key (its text, and its node for the line of an error) and value. */
static int key_of(struct parse *p, const yaml_node_pair_t *pair, const char **key,
		  yaml_node_t **key_node, yaml_node_t **value)
{
	yaml_node_t *k = yaml_document_get_node(p->doc, pair->key);

	*value = yaml_document_get_node(p->doc, pair->value);
	if (!k || !*value || k->type != YAML_SCALAR_NODE)
		return fail_at(p, k ? k : *value, "a key that is not a string");
	*key = (const char *)k->data.scalar.value;
	*key_node = k;
	return 0;
}

/* A path, relative to the config file's directory unless absolute. */
static int path_value(struct parse *p, const yaml_node_t *node, const char *what, char **out)
{
	const char *v;

	if (scalar(p, node, what, &v))
		return -1;
	if (!*v)
		return fail_at(p, node, "%s: an empty path", what);
	if (*out)
		return fail_at(p, node, "%s given twice", what);
	if (v[0] == '/' || !p->dir) {
		*out = strdup(v);
	} else if (asprintf(out, "%s/%s", p->dir, v) < 0) {
		*out = NULL;
	}
	if (!*out)
		return fail_at(p, node, "%s: %s", what, strerror(ENOMEM));
	return 0;
}

static int parse_tls(struct parse *p, const yaml_node_t *map)
{
	if (is_null(map))
		return 0;
	if (map->type != YAML_MAPPING_NODE)
		return fail_at(p, map, "tls_server_config: expected a mapping");
	for_each_pair(p->doc, map, pair)
	{
		const char *key;
		yaml_node_t *value, *key_node;

		if (key_of(p, pair, &key, &key_node, &value))
			return -1;
		if (!strcmp(key, "cert_file")) {
			if (path_value(p, value, "tls_server_config.cert_file",
				       &p->config->cert_file))
				return -1;
			continue;
		}
		if (!strcmp(key, "key_file")) {
			if (path_value(p, value, "tls_server_config.key_file",
				       &p->config->key_file))
				return -1;
			continue;
		}
		for (int i = 0; unsupported_tls_keys[i]; i++)
			if (!strcmp(key, unsupported_tls_keys[i]))
				return fail_at(p, key_node,
					       "tls_server_config.%s is not supported by foliostat "
					       "(only cert_file and key_file)",
					       key);
		return fail_at(p, key_node, "unknown key '%s' in tls_server_config", key);
	}
	if (!p->config->cert_file != !p->config->key_file || !p->config->cert_file)
		return fail_at(p, map, "tls_server_config needs both cert_file and key_file");
	return 0;
}

/* A bcrypt hash, as htpasswd -B and the exporters' documentation make them. */
static bool is_bcrypt(const char *hash)
{
	return (!strncmp(hash, "$2a$", 4) || !strncmp(hash, "$2b$", 4) ||
		!strncmp(hash, "$2y$", 4)) &&
	       strlen(hash) == 60 && crypt_checksalt(hash) == CRYPT_SALT_OK;
}

/* Its cost, "$2y$NN$...": is_bcrypt's hashes have two digits there. */
static int bcrypt_cost(const char *hash)
{
	return (hash[4] - '0') * 10 + (hash[5] - '0');
}

static int parse_users(struct parse *p, const yaml_node_t *map)
{
	struct web_config *config = p->config;

	if (is_null(map))
		return 0;
	if (map->type != YAML_MAPPING_NODE)
		return fail_at(p, map, "basic_auth_users: expected a mapping of user to hash");
	for_each_pair(p->doc, map, pair)
	{
		const char *name, *hash;
		yaml_node_t *value, *key_node;

		if (key_of(p, pair, &name, &key_node, &value) ||
		    scalar(p, value, "basic_auth_users", &hash))
			return -1;
		/* (A colon would make the user unreachable: basic auth splits at the first.) */
		if (!*name || strchr(name, ':'))
			return fail_at(p, key_node, "basic_auth_users: invalid user name '%s'",
				       name);
		for (int i = 0; i < config->nr_users; i++)
			if (!strcmp(config->users[i].name, name))
				return fail_at(p, key_node, "basic_auth_users: '%s' given twice",
					       name);
		if (!is_bcrypt(hash))
			return fail_at(p, value,
				       "basic_auth_users: the hash of '%s' is not a bcrypt hash "
				       "(make one with htpasswd -nBC 10 \"\" | tr -d ':\\n')",
				       name);
		if (bcrypt_cost(hash) > FS_WEB_MAX_BCRYPT_COST)
			return fail_at(p, value,
				       "basic_auth_users: the hash of '%s' has cost %d; at most %d "
				       "(each check would hold the exporter for seconds)",
				       name, bcrypt_cost(hash), FS_WEB_MAX_BCRYPT_COST);
		if (config->nr_users == FS_WEB_MAX_USERS)
			return fail_at(p, value, "basic_auth_users: at most %d users",
				       FS_WEB_MAX_USERS);
		config->users[config->nr_users].name = strdup(name);
		config->users[config->nr_users].hash = strdup(hash);
		if (!config->users[config->nr_users].name || !config->users[config->nr_users].hash)
			return fail_at(p, value, "%s", strerror(ENOMEM));
		config->nr_users++;
	}
	return 0;
}

static int parse_root(struct parse *p, const yaml_node_t *root)
{
	bool tls_seen = false, users_seen = false;

	if (!root || is_null(root))
		return 0; /* an empty file: plain HTTP, no authentication */
	if (root->type != YAML_MAPPING_NODE)
		return fail_at(p, root, "expected a mapping (tls_server_config, basic_auth_users)");
	for_each_pair(p->doc, root, pair)
	{
		const char *key;
		yaml_node_t *value, *key_node;
		bool *seen;
		int ret;

		if (key_of(p, pair, &key, &key_node, &value))
			return -1;
		if (!strcmp(key, "tls_server_config")) {
			seen = &tls_seen;
		} else if (!strcmp(key, "basic_auth_users")) {
			seen = &users_seen;
		} else if (!strcmp(key, "http_server_config")) {
			return fail_at(p, key_node,
				       "http_server_config is not supported by foliostat");
		} else {
			return fail_at(p, key_node,
				       "unknown key '%s' (foliostat knows tls_server_config and "
				       "basic_auth_users)",
				       key);
		}
		if (*seen)
			return fail_at(p, key_node, "%s given twice", key);
		*seen = true;
		ret = seen == &tls_seen ? parse_tls(p, value) : parse_users(p, value);
		if (ret)
			return ret;
	}
	return 0;
}

int web_config_parse(const char *text, size_t len, const char *dir, struct web_config *config,
		     char *err, size_t err_len)
{
	struct parse p = {.dir = dir, .config = config, .err = err, .err_len = err_len};
	yaml_parser_t parser;
	yaml_document_t doc, next;
	int ret;

	*config = (struct web_config){0};
	if (len > FS_WEB_MAX_BYTES) {
		snprintf(err, err_len, "too long: a web config has at most %d bytes",
			 FS_WEB_MAX_BYTES);
		return -1;
	}
	if (!yaml_parser_initialize(&parser)) {
		snprintf(err, err_len, "%s", strerror(ENOMEM));
		return -1;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		snprintf(err, err_len, "line %lu: %s", (unsigned long)parser.problem_mark.line + 1,
			 parser.problem ? parser.problem : "not YAML");
		yaml_parser_delete(&parser);
		return -1;
	}
	p.doc = &doc;
	ret = parse_root(&p, yaml_document_get_root_node(&doc));
	if (!ret) {
		if (!yaml_parser_load(&parser, &next)) {
			snprintf(err, err_len, "line %lu: %s",
				 (unsigned long)parser.problem_mark.line + 1,
				 parser.problem ? parser.problem : "not YAML");
			ret = -1;
		} else {
			if (yaml_document_get_root_node(&next)) {
				snprintf(err, err_len, "more than one YAML document");
				ret = -1;
			}
			yaml_document_delete(&next);
		}
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	if (ret)
		web_config_free(config);
	return ret;
}

int web_config_load(const char *path, struct web_config *config, char *err, size_t err_len)
{
	char reason[384], *text = NULL, *dir = NULL, *slash;
	size_t len = 0;
	FILE *f = fopen(path, "re");
	int ret = 0;

	*config = (struct web_config){0};
	if (f) {
		/* (one byte more than allowed: the parse says it is too long) */
		text = malloc(FS_WEB_MAX_BYTES + 1);
		if (text)
			len = fread(text, 1, FS_WEB_MAX_BYTES + 1, f);
		if (!text || ferror(f))
			errno = text ? EIO : ENOMEM;
		else
			ret = 1;
		fclose(f);
	}
	if (ret != 1) {
		snprintf(err, err_len, "failed to read the web config '%s': %s", path,
			 strerror(errno));
		free(text);
		return 1;
	}
	dir = strdup(path);
	if (!dir) {
		free(text);
		snprintf(err, err_len, "failed to read the web config '%s': %s", path,
			 strerror(ENOMEM));
		return 1;
	}
	slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	ret = web_config_parse(text, len, slash ? dir : NULL, config, reason, sizeof(reason));
	free(text);
	free(dir);
	if (ret) {
		snprintf(err, err_len, "invalid --web.config.file '%s': %s", path, reason);
		return 2;
	}
	return 0;
}

void web_config_free(struct web_config *config)
{
	free(config->cert_file);
	free(config->key_file);
	for (int i = 0; i < config->nr_users; i++) {
		free(config->users[i].name);
		free(config->users[i].hash);
	}
	*config = (struct web_config){0};
}
