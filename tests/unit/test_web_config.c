// SPDX-License-Identifier: GPL-2.0
/* --web.config.file: node_exporter's format, and nothing it would not do silently. */
#include <stdlib.h>

#include "unit.h"
#include "web_config.h"

/* htpasswd -nbB -C 5 prom secret */
#define HASH "$2y$05$" HASH_TAIL
#define HASH_TAIL "y7cJpAXsNrDQtphGAnPNT.58ET8XuRTcP7Qz807YMIcLLULfProty"

static char err[256];

static int parse(const char *text, struct web_config *config)
{
	err[0] = '\0';
	return web_config_parse(text, strlen(text), "/etc/foliostat", config, err, sizeof(err));
}

static bool tls_and_users_are_read(void)
{
	struct web_config config;
	bool ok = ASSERT_EQ(parse("tls_server_config:\n"
				  "  cert_file: cert.pem\n"
				  "  key_file: \"/abs/key.pem\"\n"
				  "basic_auth_users:\n"
				  "  prom: " HASH "\n"
				  "  'other': '" HASH "'\n",
				  &config),
			    0) &&
		  ASSERT_STREQ(config.cert_file, "/etc/foliostat/cert.pem") &&
		  ASSERT_STREQ(config.key_file, "/abs/key.pem") && ASSERT_EQ(config.nr_users, 2) &&
		  ASSERT_STREQ(config.users[0].name, "prom") &&
		  ASSERT_STREQ(config.users[0].hash, HASH) &&
		  ASSERT_STREQ(config.users[1].name, "other");

	web_config_free(&config);
	return ok;
}

static bool empty_means_plain_http_without_users(void)
{
	struct web_config config;

	return ASSERT_EQ(parse("", &config), 0) && ASSERT_TRUE(!config.cert_file) &&
	       ASSERT_EQ(config.nr_users, 0) && ASSERT_EQ(parse("# nothing\n", &config), 0) &&
	       ASSERT_EQ(parse("basic_auth_users:\n", &config), 0) && ASSERT_EQ(config.nr_users, 0);
}

static bool unknown_keys_are_errors(void)
{
	struct web_config config;

	return ASSERT_EQ(parse("tls_server_config:\n  cert_file: a\n  key_file: b\n"
			       "basic_auth_user:\n  prom: " HASH "\n",
			       &config),
			 -1) &&
	       ASSERT_CONTAINS(err, "line 4: unknown key 'basic_auth_user'") &&
	       ASSERT_EQ(parse("tls_server_config:\n  cert_file: a\n  keyfile: b\n", &config),
			 -1) &&
	       ASSERT_CONTAINS(err, "unknown key 'keyfile' in tls_server_config") &&
	       /* The exporters' keys foliostat does not implement are named as such. */
	       ASSERT_EQ(parse("tls_server_config:\n  cert_file: a\n  key_file: b\n"
			       "  client_auth_type: RequireAndVerifyClientCert\n",
			       &config),
			 -1) &&
	       ASSERT_CONTAINS(err, "client_auth_type is not supported by foliostat") &&
	       ASSERT_EQ(parse("http_server_config:\n  http2: false\n", &config), -1) &&
	       ASSERT_CONTAINS(err, "http_server_config is not supported");
}

/* What would hold the exporter's one thread: a file libyaml takes minutes over, a hash whose
 * every check takes hours. */
static bool what_would_stall_the_exporter_is_refused(void)
{
	static const char costly[] = "$2y$15$" HASH_TAIL;
	struct web_config config;
	char *deep = malloc(FS_WEB_MAX_BYTES + 2);
	bool ok;

	if (!ASSERT_TRUE(deep))
		return false;
	memset(deep, '[', FS_WEB_MAX_BYTES + 1);
	deep[FS_WEB_MAX_BYTES + 1] = '\0';
	ok = ASSERT_EQ(parse(deep, &config), -1) &&
	     ASSERT_CONTAINS(err, "at most 65536 bytes") &&
	     ASSERT_EQ(parse("basic_auth_users:\n  prom: '" HASH "'\n", &config), 0) &&
	     ASSERT_EQ(parse("basic_auth_users:\n  prom: '" "$2y$14$" HASH_TAIL "'\n", &config),
		       0) &&
	     ASSERT_EQ(parse((snprintf(deep, FS_WEB_MAX_BYTES, "basic_auth_users:\n  prom: '%s'\n",
				       costly),
			      deep),
			     &config),
		       -1) &&
	     ASSERT_CONTAINS(err, "has cost 15; at most 14");
	web_config_free(&config);
	free(deep);
	return ok;
}

static bool what_is_not_right_is_refused(void)
{
	struct web_config config;

	return ASSERT_EQ(parse("tls_server_config:\n  cert_file: a\n", &config), -1) &&
	       ASSERT_CONTAINS(err, "needs both cert_file and key_file") &&
	       ASSERT_EQ(parse("basic_auth_users:\n  prom: secret\n", &config), -1) &&
	       ASSERT_CONTAINS(err, "the hash of 'prom' is not a bcrypt hash") &&
	       /* A SHA-512 crypt hash is a hash, but not the format's. */
	       ASSERT_EQ(parse("basic_auth_users:\n  prom: $6$salt$abc\n", &config), -1) &&
	       ASSERT_EQ(parse("basic_auth_users:\n  prom: " HASH "\n  prom: " HASH "\n", &config),
			 -1) &&
	       ASSERT_CONTAINS(err, "'prom' given twice") &&
	       ASSERT_EQ(parse("basic_auth_users:\n  'a:b': " HASH "\n", &config), -1) &&
	       ASSERT_EQ(parse("basic_auth_users:\n  - prom\n", &config), -1) &&
	       ASSERT_EQ(parse("- tls_server_config\n", &config), -1) &&
	       ASSERT_EQ(parse("tls_server_config: [\n", &config), -1) &&
	       ASSERT_CONTAINS(err, "line ") &&
	       ASSERT_EQ(parse("basic_auth_users: {}\n---\nbasic_auth_users: {}\n", &config), -1) &&
	       ASSERT_CONTAINS(err, "more than one YAML document");
}

const struct unit_test web_config_tests[] = {
    UNIT_TEST(tls_and_users_are_read),
    UNIT_TEST(empty_means_plain_http_without_users),
    UNIT_TEST(unknown_keys_are_errors),
    UNIT_TEST(what_is_not_right_is_refused),
    UNIT_TEST(what_would_stall_the_exporter_is_refused),
    {},
};
