/* params.c — the MCA parameter registry: every source and their order, the
 * source each value reports, bad values falling back, the file syntax, the
 * parsers of each type, synonyms, read-only parameters, set before and after
 * opf_init, registration errors and introspection.
 *
 * Hermetic: every OPF_MCA_* variable is cleared first, and both parameter
 * files are redirected (OPF_MCA_PARAM_FILE_USER / _SYSTEM) into a mkdtemp
 * directory. Warnings are captured by pointing fd 2 at a file. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"

#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <opframe/component.h>
#include <opframe/introspect.h>

extern char **environ;

static char dir[] = "/tmp/opf_params_XXXXXX";
static char user_path[256], system_path[256], capture_path[256], home_dir[256], home_file[300];

/* ---- helpers ----------------------------------------------------------------- */

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(2);
    }
    fputs(text, f);
    fclose(f);
}

static void reinit(void)
{
    CHECK_RC(opf_finalize(), OPF_SUCCESS);
    CHECK_RC(opf_init(), OPF_SUCCESS);
}

/* The value of a parameter as opf_param_get gives it, or "<error>". */
static const char *value_of(const char *name)
{
    static char buf[512];
    if (opf_param_get(name, buf, (int)sizeof buf) != OPF_SUCCESS) strcpy(buf, "<error>");
    return buf;
}

/* Finds a parameter by name among opf_param_describe's; its index or -1. */
static int describe(const char *name, opf_param_info_t *info)
{
    const int n = opf_param_count();
    for (int i = 0; i < n; ++i)
        if (opf_param_describe(i, info) == OPF_SUCCESS && strcmp(info->name, name) == 0) return i;
    return -1;
}

static const char *source_of(const char *name)
{
    static char buf[512];
    opf_param_info_t info;
    snprintf(buf, sizeof buf, "%s", describe(name, &info) >= 0 ? info.source : "<not registered>");
    return buf;
}

/* stderr capture: everything written to fd 2 between begin and end. */
static int saved_stderr = -1;
static char captured[16384];

static void capture_begin(void)
{
    fflush(stderr);
    saved_stderr = dup(2);
    const int fd = open(capture_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 2);
    close(fd);
}

static const char *capture_end(void)
{
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    FILE *f = fopen(capture_path, "r");
    size_t n = f ? fread(captured, 1, sizeof captured - 1, f) : 0;
    captured[n] = '\0';
    if (f) fclose(f);
    return captured;
}

#define CONTAINS(hay, needle) CHECK(strstr((hay), (needle)) != NULL, "\"%s\" not in:\n%s", (needle), (hay))

/* ---- a component-style set of parameters with its own storage -------------------- */

static int64_t t_int, t_size, t_enum, t_flags, t_counter;
static int t_bool;
static double t_double;
static const char *t_str;

static const opf_param_spec_t test_specs[] = {
    {"op_test_int", OPF_PARAM_INT, "7", "an int", 3, OPF_PARAM_SETTABLE, NULL, "op_test_old_int", &t_int},
    {"op_test_bool", OPF_PARAM_BOOL, "false", "a bool", 3, OPF_PARAM_SETTABLE, NULL, NULL, &t_bool},
    {"op_test_size", OPF_PARAM_SIZE, "1K", "a size", 3, OPF_PARAM_SETTABLE, NULL, NULL, &t_size},
    {"op_test_double", OPF_PARAM_DOUBLE, "0.5", "a double", 3, OPF_PARAM_SETTABLE, NULL, NULL, &t_double},
    {"op_test_str", OPF_PARAM_STRING, "hello", "a string", 3, OPF_PARAM_SETTABLE, NULL, NULL, &t_str},
    {"op_test_enum", OPF_PARAM_ENUM, "medium", "an enum", 3, OPF_PARAM_SETTABLE, "low,medium,high", NULL, &t_enum},
    {"op_test_flags", OPF_PARAM_FLAGS, "read", "flags", 3, OPF_PARAM_SETTABLE, "read, write, exec", NULL, &t_flags},
    {"op_test_counter", OPF_PARAM_INT, "0", "a read-only counter", 9, OPF_PARAM_READ_ONLY, NULL, NULL, &t_counter},
};
#define N_TEST_SPECS ((int)(sizeof test_specs / sizeof test_specs[0]))

static void register_test_params(void)
{
    for (int i = 0; i < N_TEST_SPECS; ++i) CHECK_RC(opf_param_register(&test_specs[i]), OPF_SUCCESS);
}

/* ---- the sources, lowest first ------------------------------------------------------ */

enum { SRC_SYSTEM, SRC_USER, SRC_ENV, SRC_CMDLINE, SRC_API, SRC_COUNT };

static void set_source(int source, const char *name, const char *value)
{
    char text[256];
    switch (source) {
    case SRC_SYSTEM:
    case SRC_USER:
        snprintf(text, sizeof text, "%s = %s\n", name, value);
        write_file(source == SRC_SYSTEM ? system_path : user_path, text);
        break;
    case SRC_ENV:
        snprintf(text, sizeof text, "OPF_MCA_%s", name);
        setenv(text, value, 1);
        break;
    case SRC_CMDLINE: CHECK_RC(opf_param_set_cmdline(name, value), OPF_SUCCESS); break;
    case SRC_API: CHECK_RC(opf_param_set(name, value), OPF_SUCCESS); break;
    }
}

/* The source text of a value set with set_source (one line: line 1). */
static const char *source_text(int source, const char *name)
{
    static char text[512];
    switch (source) {
    case SRC_SYSTEM: snprintf(text, sizeof text, "file %s:1", system_path); break;
    case SRC_USER: snprintf(text, sizeof text, "file %s:1", user_path); break;
    case SRC_ENV: snprintf(text, sizeof text, "environment OPF_MCA_%s", name); break;
    case SRC_CMDLINE: snprintf(text, sizeof text, "command line"); break;
    case SRC_API: snprintf(text, sizeof text, "API"); break;
    default: snprintf(text, sizeof text, "default"); break;
    }
    return text;
}

/* Removes `name` from every source (the API and command line accept that for
 * any name before opf_init, and for known names after). */
static void clear_sources(const char *name)
{
    char var[128];
    write_file(system_path, "");
    write_file(user_path, "");
    snprintf(var, sizeof var, "OPF_MCA_%s", name);
    unsetenv(var);
    CHECK_RC(opf_param_set_cmdline(name, NULL), OPF_SUCCESS);
    CHECK_RC(opf_param_set(name, NULL), OPF_SUCCESS);
}

/* ---- scenarios ------------------------------------------------------------------------- */

static void test_before_init(void)
{
    /* The framework's parameters are known before opf_init. */
    CHECK(strcmp(value_of("op_base_verbose"), "0") == 0, "op_base_verbose before init is %s", value_of("op_base_verbose"));
    CHECK(strcmp(source_of("op_base_verbose"), "default") == 0, "source %s", source_of("op_base_verbose"));
    /* Any name is accepted before init, and removed again. */
    CHECK_RC(opf_param_set("op_nosuch_thing", "1"), OPF_SUCCESS);
    CHECK_RC(opf_param_set("op_nosuch_thing", NULL), OPF_SUCCESS);
    CHECK_RC(opf_param_set_cmdline("op_nosuch_thing", "1"), OPF_SUCCESS);
    CHECK_RC(opf_param_set_cmdline("op_nosuch_thing", NULL), OPF_SUCCESS);
    /* A known parameter's value is checked even before init. */
    CHECK_RC(opf_param_set("op_base_verbose", "lots"), OPF_ERR_ARG);
    CHECK_RC(opf_init(), OPF_SUCCESS);
}

/* Every pair (lower, higher) of sources, default included: the higher wins
 * and reports itself as the source. */
static void test_precedence(void)
{
    const char *name = "op_base_user_int_limit";
    for (int lo = -1; lo < SRC_COUNT; ++lo)
        for (int hi = lo + 1; hi < SRC_COUNT; ++hi) {
            char lo_value[16], hi_value[16];
            snprintf(lo_value, sizeof lo_value, "%d", 1000 + lo);
            snprintf(hi_value, sizeof hi_value, "%d", 2000 + hi);
            clear_sources(name);
            if (lo >= 0) set_source(lo, name, lo_value);
            set_source(hi, name, hi_value);
            reinit();
            CHECK(strcmp(value_of(name), hi_value) == 0, "sources %d < %d: value %s, expected %s", lo, hi,
                  value_of(name), hi_value);
            CHECK(strcmp(source_of(name), source_text(hi, name)) == 0, "sources %d < %d: source \"%s\", expected \"%s\"",
                  lo, hi, source_of(name), source_text(hi, name));
        }
    clear_sources(name);
    reinit();
    CHECK(strcmp(value_of(name), "2147483647") == 0, "default value %s", value_of(name));
    CHECK(strcmp(source_of(name), "default") == 0, "default source %s", source_of(name));
}

/* A bad value in each source warns (naming the source and the parameter) and
 * the next lower source is used. API and command-line values are checked when
 * the parameter is known, so those are set while it is not (before init). */
static void test_bad_values(void)
{
    const char *name = "op_test_int";
    for (int bad = SRC_SYSTEM; bad < SRC_COUNT; ++bad) {
        CHECK_RC(opf_finalize(), OPF_SUCCESS);
        clear_sources(name);
        const int good = bad - 1;   /* -1: the default */
        if (good >= 0) set_source(good, name, "55");
        set_source(bad, name, "12abc");
        capture_begin();
        CHECK_RC(opf_init(), OPF_SUCCESS);
        register_test_params();
        const char *err = capture_end();
        const int64_t expect = good >= 0 ? 55 : 7;
        CHECK(t_int == expect, "bad value in source %d: t_int %lld, expected %lld", bad, (long long)t_int,
              (long long)expect);
        CHECK(strcmp(source_of(name), source_text(good, name)) == 0, "bad value in source %d: source \"%s\"", bad,
              source_of(name));
        CONTAINS(err, "opframe: warning: ");
        CONTAINS(err, "op_test_int");
        CONTAINS(err, "\"12abc\"");
        CONTAINS(err, source_text(bad, name));
        CONTAINS(err, "not an integer");
    }
    CHECK_RC(opf_finalize(), OPF_SUCCESS);
    clear_sources(name);

    /* Two bad sources: down to the default. */
    setenv("OPF_MCA_op_test_int", "x", 1);
    write_file(user_path, "op_test_int = y\n");
    capture_begin();
    CHECK_RC(opf_init(), OPF_SUCCESS);
    register_test_params();
    const char *err = capture_end();
    CHECK(t_int == 7 && strcmp(source_of(name), "default") == 0, "two bad sources: %lld from %s", (long long)t_int,
          source_of(name));
    CONTAINS(err, "environment OPF_MCA_op_test_int");
    CONTAINS(err, user_path);
    unsetenv("OPF_MCA_op_test_int");
    write_file(user_path, "");

    /* The framework's range checks are bad values too. */
    setenv("OPF_MCA_op_base_user_int_limit", "0", 1);
    setenv("OPF_MCA_op_base_verbose", "101", 1);
    capture_begin();
    reinit();
    err = capture_end();
    CHECK(strcmp(value_of("op_base_user_int_limit"), "2147483647") == 0, "limit 0 accepted: %s",
          value_of("op_base_user_int_limit"));
    CHECK(strcmp(value_of("op_base_verbose"), "0") == 0, "verbose 101 accepted: %s", value_of("op_base_verbose"));
    CONTAINS(err, "OPF_MCA_op_base_user_int_limit");
    CONTAINS(err, "not in [1, 2147483647]");
    CONTAINS(err, "OPF_MCA_op_base_verbose");
    unsetenv("OPF_MCA_op_base_user_int_limit");
    unsetenv("OPF_MCA_op_base_verbose");
    reinit();
}

static void test_file_syntax(void)
{
    write_file(user_path,
               "# op_test_bool = true\n"                  /* 1: a comment */
               "\n"                                       /* 2 */
               "   op_test_str  =  \"  spaced out  \"  \n" /* 3: quotes keep the blanks */
               "op_test_int=42\n"                         /* 4 */
               "this line has no equals sign\n"           /* 5: malformed */
               "  = 5\n"                                  /* 6: empty name */
               "\top_test_size = 2M\r\n"                  /* 7 */
               "op_test_enum = \"high\"\n"                /* 8 */
               "op_test_int = 43   \n"                    /* 9: a later line wins */
               "op_test_double = \"0.25\n"                /* 10: unterminated quote */
               "op_test_flags =\n");                      /* 11: empty value: no flag */
    capture_begin();
    reinit();
    register_test_params();
    const char *err = capture_end();
    char where[512];
    CHECK(t_bool == 0, "a commented line was applied");
    CHECK(t_str && strcmp(t_str, "  spaced out  ") == 0, "quoted string \"%s\"", t_str ? t_str : "(null)");
    snprintf(where, sizeof where, "file %s:3", user_path);
    CHECK(strcmp(source_of("op_test_str"), where) == 0, "source %s", source_of("op_test_str"));
    CHECK(t_int == 43, "later line: t_int %lld", (long long)t_int);
    snprintf(where, sizeof where, "file %s:9", user_path);
    CHECK(strcmp(source_of("op_test_int"), where) == 0, "source %s", source_of("op_test_int"));
    CHECK(t_size == 2 << 20, "size with a CR line end: %lld", (long long)t_size);
    CHECK(t_enum == 2, "quoted enum word: %lld", (long long)t_enum);
    CHECK(t_double == 0.5, "a line with an unterminated quote was applied: %g", t_double);
    CHECK(t_flags == 0, "empty flags value: %lld", (long long)t_flags);
    snprintf(where, sizeof where, "%s:5", user_path);
    CONTAINS(err, where);
    snprintf(where, sizeof where, "%s:6", user_path);
    CONTAINS(err, where);
    snprintf(where, sizeof where, "%s:10", user_path);
    CONTAINS(err, where);
    snprintf(where, sizeof where, "%s:1:", user_path);
    CHECK(!strstr(err, where), "a comment line warned:\n%s", err);
    snprintf(where, sizeof where, "%s:3:", user_path);
    CHECK(!strstr(err, where), "a good line warned:\n%s", err);
    write_file(user_path, "");

    /* The user file's default place is $HOME/.opframe/mca-params.conf. */
    const char *old_home = getenv("HOME");
    char saved_home[256];
    snprintf(saved_home, sizeof saved_home, "%s", old_home ? old_home : "");
    setenv("HOME", dir, 1);
    unsetenv("OPF_MCA_PARAM_FILE_USER");
    write_file(home_file, "op_base_user_int_limit = 4242\n");
    reinit();
    snprintf(where, sizeof where, "file %s:1", home_file);
    CHECK(strcmp(value_of("op_base_user_int_limit"), "4242") == 0, "home file value %s",
          value_of("op_base_user_int_limit"));
    CHECK(strcmp(source_of("op_base_user_int_limit"), where) == 0, "home file source %s",
          source_of("op_base_user_int_limit"));
    if (old_home) setenv("HOME", saved_home, 1);
    else unsetenv("HOME");
    setenv("OPF_MCA_PARAM_FILE_USER", user_path, 1);
    reinit();
    CHECK(strcmp(value_of("op_base_user_int_limit"), "2147483647") == 0, "override ignored: %s",
          value_of("op_base_user_int_limit"));
}

/* Each type's parser through opf_param_set (which writes the storage at once),
 * and its text through opf_param_get. */
static void test_parsers(void)
{
    reinit();
    register_test_params();

    static const struct { const char *text; int value; } bools[] = {
        {"1", 1}, {"0", 0}, {"true", 1}, {"FALSE", 0}, {"Yes", 1}, {"no", 0}, {"ON", 1}, {"off", 0}, {" true ", 1}};
    for (size_t i = 0; i < sizeof bools / sizeof bools[0]; ++i) {
        CHECK_RC(opf_param_set("op_test_bool", bools[i].text), OPF_SUCCESS);
        CHECK(t_bool == bools[i].value, "bool \"%s\" gave %d", bools[i].text, t_bool);
    }
    CHECK(strcmp(value_of("op_test_bool"), "true") == 0, "bool text %s", value_of("op_test_bool"));
    static const char *const bad_bools[] = {"2", "maybe", "", "tru", "-1"};
    for (size_t i = 0; i < sizeof bad_bools / sizeof bad_bools[0]; ++i) {
        CHECK_RC(opf_param_set("op_test_bool", bad_bools[i]), OPF_ERR_ARG);
        CHECK(t_bool == 1, "bad bool \"%s\" changed the storage", bad_bools[i]);
    }

    static const struct { const char *text; int64_t value; const char *shown; } ints[] = {
        {"-5", -5, "-5"}, {"0x10", 16, "16"}, {"+8", 8, "8"}, {"9223372036854775807", INT64_MAX, "9223372036854775807"},
        {"-9223372036854775808", INT64_MIN, "-9223372036854775808"}};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; ++i) {
        CHECK_RC(opf_param_set("op_test_int", ints[i].text), OPF_SUCCESS);
        CHECK(t_int == ints[i].value, "int \"%s\" gave %lld", ints[i].text, (long long)t_int);
        CHECK(strcmp(value_of("op_test_int"), ints[i].shown) == 0, "int text %s", value_of("op_test_int"));
    }
    static const char *const bad_ints[] = {"12abc", "", "1.5", "9223372036854775808", "0x", "--1", "one"};
    for (size_t i = 0; i < sizeof bad_ints / sizeof bad_ints[0]; ++i) {
        CHECK_RC(opf_param_set("op_test_int", bad_ints[i]), OPF_ERR_ARG);
        CHECK(t_int == INT64_MIN, "bad int \"%s\" changed the storage", bad_ints[i]);
    }
    CONTAINS(opf_last_error(), "op_test_int");

    static const struct { const char *text; int64_t value; const char *shown; } sizes[] = {
        {"4096", 4096, "4K"}, {"4K", 4096, "4K"}, {"3k", 3072, "3K"}, {"2M", 2 << 20, "2M"},
        {"1G", 1 << 30, "1G"}, {"1536", 1536, "1536"}, {"0", 0, "0"}, {"2048K", 2 << 20, "2M"}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
        CHECK_RC(opf_param_set("op_test_size", sizes[i].text), OPF_SUCCESS);
        CHECK(t_size == sizes[i].value, "size \"%s\" gave %lld", sizes[i].text, (long long)t_size);
        CHECK(strcmp(value_of("op_test_size"), sizes[i].shown) == 0, "size text %s", value_of("op_test_size"));
    }
    static const char *const bad_sizes[] = {"4X", "-1", "K", "1.5K", "4KB", "4KM", "", "99999999999G"};
    for (size_t i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; ++i) {
        CHECK_RC(opf_param_set("op_test_size", bad_sizes[i]), OPF_ERR_ARG);
        CHECK(t_size == 2 << 20, "bad size \"%s\" changed the storage", bad_sizes[i]);
    }

    CHECK_RC(opf_param_set("op_test_double", "0.25"), OPF_SUCCESS);
    CHECK(t_double == 0.25, "double %g", t_double);
    CHECK_RC(opf_param_set("op_test_double", "1e3"), OPF_SUCCESS);
    CHECK(t_double == 1000.0 && strcmp(value_of("op_test_double"), "1000") == 0, "double %g shown %s", t_double,
          value_of("op_test_double"));
    CHECK_RC(opf_param_set("op_test_double", "0.1"), OPF_SUCCESS);
    CHECK(strcmp(value_of("op_test_double"), "0.1") == 0, "double text %s", value_of("op_test_double"));
    static const char *const bad_doubles[] = {"abc", "1.5x", "inf", "nan", ""};
    for (size_t i = 0; i < sizeof bad_doubles / sizeof bad_doubles[0]; ++i)
        CHECK_RC(opf_param_set("op_test_double", bad_doubles[i]), OPF_ERR_ARG);
    CHECK(t_double == 0.1, "a bad double changed the storage: %g", t_double);

    CHECK_RC(opf_param_set("op_test_enum", "high"), OPF_SUCCESS);
    CHECK(t_enum == 2, "enum high: %lld", (long long)t_enum);
    CHECK_RC(opf_param_set("op_test_enum", "LOW"), OPF_SUCCESS);
    CHECK(t_enum == 0 && strcmp(value_of("op_test_enum"), "low") == 0, "enum LOW: %lld %s", (long long)t_enum,
          value_of("op_test_enum"));
    CHECK_RC(opf_param_set("op_test_enum", "extreme"), OPF_ERR_ARG);
    CONTAINS(opf_last_error(), "low,medium,high");
    CHECK_RC(opf_param_set("op_test_enum", "1"), OPF_ERR_ARG);
    CHECK(t_enum == 0, "a bad enum word changed the storage");

    static const struct { const char *text; int64_t value; const char *shown; } flags[] = {
        {"read,exec", 5, "read,exec"}, {"write, read", 3, "read,write"}, {"", 0, ""}, {"EXEC", 4, "exec"},
        {"read,write,exec", 7, "read,write,exec"}};
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; ++i) {
        CHECK_RC(opf_param_set("op_test_flags", flags[i].text), OPF_SUCCESS);
        CHECK(t_flags == flags[i].value, "flags \"%s\" gave %lld", flags[i].text, (long long)t_flags);
        CHECK(strcmp(value_of("op_test_flags"), flags[i].shown) == 0, "flags text %s", value_of("op_test_flags"));
    }
    CHECK_RC(opf_param_set("op_test_flags", "read,bogus"), OPF_ERR_ARG);
    CONTAINS(opf_last_error(), "bogus");
    CHECK(t_flags == 7, "bad flags changed the storage");

    /* Strings from the API are taken as they are. */
    CHECK_RC(opf_param_set("op_test_str", " two words "), OPF_SUCCESS);
    CHECK(t_str && strcmp(t_str, " two words ") == 0, "string \"%s\"", t_str ? t_str : "(null)");

    /* Removing the API value goes back to the next source. */
    for (int i = 0; i < N_TEST_SPECS - 1; ++i) CHECK_RC(opf_param_set(test_specs[i].name, NULL), OPF_SUCCESS);
    CHECK(t_int == 7 && t_bool == 0 && t_size == 1024 && t_double == 0.5 && strcmp(t_str, "hello") == 0 &&
              t_enum == 1 && t_flags == 1,
          "defaults after removing the API values: %lld %d %lld %g %s %lld %lld", (long long)t_int, t_bool,
          (long long)t_size, t_double, t_str, (long long)t_enum, (long long)t_flags);
    CHECK(strcmp(source_of("op_test_int"), "default") == 0, "source after removal %s", source_of("op_test_int"));
}

static void test_synonyms(void)
{
    setenv("OPF_MCA_op_verbose", "2", 1);
    capture_begin();
    reinit();
    const char *err = capture_end();
    CHECK(strcmp(value_of("op_base_verbose"), "2") == 0, "synonym value %s", value_of("op_base_verbose"));
    CHECK(strcmp(source_of("op_base_verbose"), "environment OPF_MCA_op_verbose (synonym op_verbose)") == 0,
          "synonym source %s", source_of("op_base_verbose"));
    CONTAINS(err, "op_verbose (environment OPF_MCA_op_verbose) is deprecated, use op_base_verbose");
    CHECK(strcmp(value_of("op_verbose"), "2") == 0, "get by the old name %s", value_of("op_verbose"));

    /* The new name wins over the old one in the same source. */
    setenv("OPF_MCA_op_base_verbose", "1", 1);
    reinit();
    CHECK(strcmp(value_of("op_base_verbose"), "1") == 0, "new name did not win: %s", value_of("op_base_verbose"));
    CHECK(strcmp(source_of("op_base_verbose"), "environment OPF_MCA_op_base_verbose") == 0, "source %s",
          source_of("op_base_verbose"));
    unsetenv("OPF_MCA_op_base_verbose");
    capture_begin();   /* the deprecation warning again */
    reinit();
    capture_end();

    /* Set through the old name; removal through the new name removes it. */
    capture_begin();
    CHECK_RC(opf_param_set("op_verbose", "3"), OPF_SUCCESS);
    err = capture_end();
    CHECK(strcmp(value_of("op_base_verbose"), "3") == 0, "set by old name %s", value_of("op_base_verbose"));
    CHECK(strcmp(source_of("op_base_verbose"), "API (synonym op_verbose)") == 0, "source %s",
          source_of("op_base_verbose"));
    CONTAINS(err, "deprecated, use op_base_verbose");
    CHECK_RC(opf_param_set("op_base_verbose", NULL), OPF_SUCCESS);
    CHECK(strcmp(source_of("op_base_verbose"), "environment OPF_MCA_op_verbose (synonym op_verbose)") == 0,
          "source after removal %s", source_of("op_base_verbose"));
    unsetenv("OPF_MCA_op_verbose");

    /* A component's synonym, from a file. */
    write_file(system_path, "op_test_old_int = 11\n");
    capture_begin();
    reinit();
    register_test_params();
    err = capture_end();
    char where[512];
    snprintf(where, sizeof where, "file %s:1 (synonym op_test_old_int)", system_path);
    CHECK(t_int == 11, "component synonym: %lld", (long long)t_int);
    CHECK(strcmp(source_of("op_test_int"), where) == 0, "source %s", source_of("op_test_int"));
    CONTAINS(err, "op_test_old_int");
    CONTAINS(err, "deprecated, use op_test_int");
    write_file(system_path, "");
    reinit();
    CHECK(strcmp(value_of("op_base_verbose"), "0") == 0, "verbose left over: %s", value_of("op_base_verbose"));
}

static void test_read_only(void)
{
    setenv("OPF_MCA_op_test_counter", "5", 1);
    capture_begin();
    reinit();
    register_test_params();
    const char *err = capture_end();
    CHECK(t_counter == 0, "read-only took an environment value: %lld", (long long)t_counter);
    CONTAINS(err, "read-only");
    CONTAINS(err, "OPF_MCA_op_test_counter");
    unsetenv("OPF_MCA_op_test_counter");

    CHECK_RC(opf_param_set("op_test_counter", "5"), OPF_ERR_ARG);
    CONTAINS(opf_last_error(), "read-only");
    CHECK_RC(opf_param_set_cmdline("op_test_counter", "5"), OPF_ERR_ARG);
    CHECK(t_counter == 0, "read-only changed: %lld", (long long)t_counter);

    /* The component updates its own storage; get and describe show it. */
    t_counter = 99;
    CHECK(strcmp(value_of("op_test_counter"), "99") == 0, "counter %s", value_of("op_test_counter"));
    opf_param_info_t info;
    CHECK(describe("op_test_counter", &info) >= 0 && info.read_only == 1 && strcmp(info.value, "99") == 0,
          "describe of a read-only counter");
}

static void test_set_and_init(void)
{
    /* Before init: remembered, applied at registration. */
    CHECK_RC(opf_finalize(), OPF_SUCCESS);
    CHECK_RC(opf_param_set("op_test_int", "21"), OPF_SUCCESS);
    CHECK_RC(opf_param_set_cmdline("op_test_size", "8K"), OPF_SUCCESS);
    CHECK_RC(opf_init(), OPF_SUCCESS);
    register_test_params();
    CHECK(t_int == 21 && strcmp(source_of("op_test_int"), "API") == 0, "pending API value: %lld from %s",
          (long long)t_int, source_of("op_test_int"));
    CHECK(t_size == 8192 && strcmp(source_of("op_test_size"), "command line") == 0,
          "pending command-line value: %lld from %s", (long long)t_size, source_of("op_test_size"));

    /* After init: the storage changes at once; a bad value changes nothing. */
    CHECK_RC(opf_param_set("op_test_int", "22"), OPF_SUCCESS);
    CHECK(t_int == 22, "set after init: %lld", (long long)t_int);
    opf_param_info_t info;
    CHECK(describe("op_test_int", &info) >= 0, "op_test_int not described");
    const char *old_value = info.value;   /* valid until opf_finalize */
    CHECK_RC(opf_param_set("op_test_int", "x"), OPF_ERR_ARG);
    CONTAINS(opf_last_error(), "op_test_int");
    CHECK(t_int == 22 && strcmp(value_of("op_test_int"), "22") == 0, "bad set changed the value: %lld",
          (long long)t_int);
    CHECK_RC(opf_param_set("op_test_int", "23"), OPF_SUCCESS);
    CHECK(describe("op_test_int", &info) >= 0 && strcmp(info.value, "23") == 0, "describe after set: %s", info.value);
    CHECK(strcmp(old_value, "22") == 0, "an earlier description changed: %s", old_value);

    /* The command line yields to the API. */
    CHECK_RC(opf_param_set_cmdline("op_test_int", "24"), OPF_SUCCESS);
    CHECK(t_int == 23, "command line beat the API: %lld", (long long)t_int);
    CHECK_RC(opf_param_set("op_test_int", NULL), OPF_SUCCESS);
    CHECK(t_int == 24 && strcmp(source_of("op_test_int"), "command line") == 0, "after API removal: %lld from %s",
          (long long)t_int, source_of("op_test_int"));

    /* Component registrations end at finalize; API and command-line values stay. */
    CHECK_RC(opf_param_set("op_base_user_int_limit", "777"), OPF_SUCCESS);
    reinit();
    CHECK(strcmp(value_of("op_test_int"), "<error>") == 0, "component parameter survived finalize");
    CHECK(describe("op_test_int", &info) < 0, "component parameter still described after finalize");
    CHECK(strcmp(value_of("op_base_user_int_limit"), "777") == 0 &&
              strcmp(source_of("op_base_user_int_limit"), "API") == 0,
          "API value lost at finalize: %s from %s", value_of("op_base_user_int_limit"),
          source_of("op_base_user_int_limit"));
    register_test_params();
    CHECK(t_int == 24 && t_size == 8192, "command-line values lost at finalize: %lld %lld", (long long)t_int,
          (long long)t_size);
    CHECK_RC(opf_param_set("op_base_user_int_limit", NULL), OPF_SUCCESS);
    CHECK_RC(opf_param_set_cmdline("op_test_int", NULL), OPF_SUCCESS);
    CHECK_RC(opf_param_set_cmdline("op_test_size", NULL), OPF_SUCCESS);
    CHECK(t_int == 7 && t_size == 1024, "removal: %lld %lld", (long long)t_int, (long long)t_size);
}

static void test_unknown_names(void)
{
    reinit();
    CHECK_RC(opf_param_set("op_nosuch_thing", "1"), OPF_ERR_ARG);
    CONTAINS(opf_last_error(), "unknown parameter");
    CHECK_RC(opf_param_set_cmdline("op_nosuch_thing", "1"), OPF_ERR_ARG);
    CONTAINS(opf_last_error(), "unknown parameter");
    CHECK_RC(opf_param_set("op_nosuch_thing", NULL), OPF_ERR_ARG);
    char buf[64];
    CHECK_RC(opf_param_get("op_nosuch_thing", buf, (int)sizeof buf), OPF_ERR_ARG);
    CHECK_RC(opf_param_set(NULL, "1"), OPF_ERR_ARG);
    CHECK_RC(opf_param_set("", "1"), OPF_ERR_ARG);
    CHECK_RC(opf_param_get(NULL, buf, (int)sizeof buf), OPF_ERR_ARG);
    CHECK_RC(opf_param_get("op", NULL, 10), OPF_ERR_ARG);
    CHECK_RC(opf_param_get("op", buf, 0), OPF_ERR_ARG);
    /* A buffer too small is an error and is left alone. */
    char small[4] = "abc";
    CHECK_RC(opf_param_get("op_base_user_int_limit", small, (int)sizeof small), OPF_ERR_ARG);
    CHECK(strcmp(small, "abc") == 0, "a short buffer was written");
}

static void test_registration_errors(void)
{
    reinit();
    register_test_params();
    static int64_t other;
    static int64_t unused_storage;
    const opf_param_spec_t good = {"op_test_other", OPF_PARAM_INT, "1", "x", 3, 0, NULL, NULL, &other};
    opf_param_spec_t s;

    CHECK_RC(opf_param_register(NULL), OPF_ERR_ARG);
#define BAD_SPEC(field, val, why) do { \
        s = good; \
        s.field = val; \
        CHECK_RC(opf_param_register(&s), OPF_ERR_ARG); \
        CHECK(opf_last_error()[0] != '\0', "no message for %s", why); \
    } while (0)
    BAD_SPEC(name, NULL, "a NULL name");
    BAD_SPEC(name, "", "an empty name");
    BAD_SPEC(name, "op test", "a name with a blank");
    BAD_SPEC(level, 0, "level 0");
    BAD_SPEC(level, 10, "level 10");
    BAD_SPEC(type, 99, "type 99");
    BAD_SPEC(type, -1, "type -1");
    BAD_SPEC(flags, 4, "unknown flags");
    BAD_SPEC(default_value, "abc", "a bad int default");
    BAD_SPEC(storage, NULL, "NULL storage");
    BAD_SPEC(synonyms, "op_verbose", "a synonym taken by another parameter");
    BAD_SPEC(synonyms, "op_test_other", "a synonym equal to the name");
    BAD_SPEC(name, "op_verbose", "a name that is another parameter's synonym");
    CONTAINS(opf_last_error(), "op_base_verbose");
    s = good;
    s.type = OPF_PARAM_ENUM;
    s.values = NULL;
    s.default_value = "";
    CHECK_RC(opf_param_register(&s), OPF_ERR_ARG);
    s.values = "a,,b";
    s.default_value = "a";
    CHECK_RC(opf_param_register(&s), OPF_ERR_ARG);
    s.values = "a,b,A";
    CHECK_RC(opf_param_register(&s), OPF_ERR_ARG);
    s.values = "a,b";
    s.default_value = "c";
    CHECK_RC(opf_param_register(&s), OPF_ERR_ARG);
    CONTAINS(opf_last_error(), "op_test_other");
    s.type = OPF_PARAM_SIZE;
    s.default_value = "12Q";
    CHECK_RC(opf_param_register(&s), OPF_ERR_ARG);
    /* Nothing of the above was registered. */
    opf_param_info_t info;
    CHECK(describe("op_test_other", &info) < 0, "a bad spec was registered");

    /* The same name: an error with other storage, idempotent with the same. */
    s = test_specs[0];
    s.storage = &unused_storage;
    CHECK_RC(opf_param_register(&s), OPF_ERR_ARG);
    CONTAINS(opf_last_error(), "already registered");
    const int before = opf_param_count();
    CHECK_RC(opf_param_register(&test_specs[0]), OPF_SUCCESS);
    CHECK(opf_param_count() == before, "idempotent registration added a parameter");
    CHECK_RC(opf_param_register(&good), OPF_SUCCESS);
    CHECK(other == 1 && opf_param_count() == before + 1, "good spec: %lld", (long long)other);
}

static void test_introspection(void)
{
    reinit();
    register_test_params();
    const int n = opf_param_count();
    CHECK(n >= 7 + N_TEST_SPECS, "only %d parameters", n);
    opf_param_info_t info;
    CHECK_RC(opf_param_describe(-1, &info), OPF_ERR_ARG);
    CHECK_RC(opf_param_describe(n, &info), OPF_ERR_ARG);
    CHECK_RC(opf_param_describe(0, NULL), OPF_ERR_ARG);

    static const struct {
        const char *name, *type, *default_value, *value;
        int level;
    } framework[] = {
        {"op_base_user_int_limit", "int", "2147483647", "2147483647", 9},
        {"op", "string", "", "", 2},
        {"op_base_verbose", "int", "0", "0", 5},
        {"mca_component_path", "string", NULL, NULL, 4},
        {"mca_component_show_load_errors", "bool", "true", "true", 5},
        {"op_base_pin", "string", "", "", 4},
        {"op_base_selftest", "bool", "false", "false", 4},
    };
    int last = -1;
    for (size_t i = 0; i < sizeof framework / sizeof framework[0]; ++i) {
        const int at = describe(framework[i].name, &info);
        CHECK(at > last, "%s at %d, not after %d", framework[i].name, at, last);
        if (at < 0) continue;
        last = at;
        CHECK(strcmp(info.type_name, framework[i].type) == 0, "%s: type %s", info.name, info.type_name);
        CHECK(info.level == framework[i].level, "%s: level %d", info.name, info.level);
        CHECK(!framework[i].default_value || strcmp(info.default_value, framework[i].default_value) == 0,
              "%s: default %s", info.name, info.default_value);
        CHECK(!framework[i].value || strcmp(info.value, framework[i].value) == 0, "%s: value %s", info.name, info.value);
        CHECK(strcmp(info.source, "default") == 0, "%s: source %s", info.name, info.source);
        CHECK(info.read_only == 0 && info.description[0] != '\0' && info.values == NULL, "%s: fields", info.name);
    }
    CHECK(describe("op_base_verbose", &info) >= 0 && info.synonyms && strcmp(info.synonyms, "op_verbose") == 0,
          "op_base_verbose synonyms");

    /* The test parameters follow, in their order. */
    last = -1;
    for (int i = 0; i < N_TEST_SPECS; ++i) {
        const int at = describe(test_specs[i].name, &info);
        CHECK(at > last, "%s at %d, not after %d", test_specs[i].name, at, last);
        if (at < 0) continue;
        last = at;
        CHECK(info.type == test_specs[i].type && info.level == test_specs[i].level &&
                  strcmp(info.default_value, test_specs[i].default_value) == 0 &&
                  strcmp(info.description, test_specs[i].description) == 0,
              "%s: declaration not kept", info.name);
    }
    CHECK(describe("op_test_enum", &info) >= 0 && strcmp(info.type_name, "enum") == 0 && info.values &&
              strcmp(info.values, "low,medium,high") == 0 && strcmp(info.value, "medium") == 0,
          "enum description");
    CHECK(describe("op_test_flags", &info) >= 0 && strcmp(info.type_name, "flags") == 0 && info.values &&
              strcmp(info.values, "read,write,exec") == 0 && strcmp(info.value, "read") == 0,
          "flags description");
    CHECK(describe("op_test_size", &info) >= 0 && strcmp(info.type_name, "size") == 0 && strcmp(info.value, "1K") == 0,
          "size description");
    CHECK(describe("op_test_double", &info) >= 0 && strcmp(info.type_name, "double") == 0, "double description");
    CHECK(describe("op_test_int", &info) >= 0 && info.synonyms && strcmp(info.synonyms, "op_test_old_int") == 0,
          "int synonyms");
}

/* ---- setup ----------------------------------------------------------------------------- */

/* No OPF_MCA_* of the caller may leak into the expectations. */
/* ---- hostile parameter sources (issue 12, item 11) ----------------------------------- */

/* A parameter file that is a directory, a device that never ends (/dev/zero),
 * a FIFO without a writer, or a file with a NUL byte: a warning naming it, the other sources still
 * apply, and opf_init returns (an alarm fails the test if it hangs). */
static void test_hostile_files(void)
{
    write_file(system_path, "op_base_verbose = 3\n");
    alarm(60);
    const char *hostile[][2] = {{dir, "is a directory"}, {"/dev/zero", "larger than"}};
    for (int i = 0; i < 2; ++i) {
        setenv("OPF_MCA_PARAM_FILE_USER", hostile[i][0], 1);
        capture_begin();
        reinit();
        const char *err = capture_end();
        CONTAINS(err, hostile[i][0]);
        CONTAINS(err, hostile[i][1]);
        CHECK(strcmp(value_of("op_base_verbose"), "3") == 0, "user file %s: the system file's value is lost (%s)",
              hostile[i][0], value_of("op_base_verbose"));
    }
    {   /* a FIFO nobody writes to: read as empty, never waited on */
        char fifo[300];
        snprintf(fifo, sizeof fifo, "%s/fifo", dir);
        CHECK(mkfifo(fifo, 0600) == 0, "mkfifo %s failed", fifo);
        setenv("OPF_MCA_PARAM_FILE_USER", fifo, 1);
        reinit();
        CHECK(strcmp(value_of("op_base_verbose"), "3") == 0, "user file a FIFO: op_base_verbose = %s",
              value_of("op_base_verbose"));
        unlink(fifo);
    }
    alarm(0);
    {
        static const char text[] = "op_base_verbose = 4\0 and more\n";
        FILE *f = fopen(user_path, "w");
        fwrite(text, 1, sizeof text - 1, f);
        fclose(f);
    }
    setenv("OPF_MCA_PARAM_FILE_USER", user_path, 1);
    capture_begin();
    reinit();
    const char *err = capture_end();
    CONTAINS(err, "NUL byte");
    CHECK(strcmp(value_of("op_base_verbose"), "3") == 0, "a line with a NUL byte was used: op_base_verbose = %s",
          value_of("op_base_verbose"));
    write_file(user_path, "");
    write_file(system_path, "");
    reinit();
}

/* `op` with an empty name is refused at opf_init like an unknown name; pins
 * that cannot apply warn with the reason; op / op_base_pin set while
 * initialized apply at the next opf_init, and say so. */
static void test_selection_params(void)
{
    static const char *lists[] = {",", " ", "base,,", "^", "^base,"};
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; ++i) {
        char param[64];
        opf_finalize();
        CHECK_RC(opf_param_set("op", lists[i]), OPF_SUCCESS);
        CHECK_RC(opf_init(), OPF_ERR_ARG);
        snprintf(param, sizeof param, "op=\"%s\"", lists[i]);
        CONTAINS(opf_last_error(), param);
        CONTAINS(opf_last_error(), "empty");
    }
    CHECK_RC(opf_param_set("op", NULL), OPF_SUCCESS);

    static const char *pins[][2] = {
        {"land:float=base", "LAND is not defined on FLOAT: not a slot"},
        {"sum:float=avx2=avx512", "more than one '='"},
        {"sum:float=nosuch", "the pin of SUM FLOAT to \"nosuch\": no such component"},
        {"sum:float", "not op:type=provider"},
        {"sum:float=base,", "an empty item"},
        {"sum:float@64K=base", "the range \"64K\" is not LO-HI"},
        {"sum:float@1M-64K=base", "the range \"1M-64K\" starts above its end"},
        {"sum:float@64K-1Q=base", "the range \"64K-1Q\" has \"1Q\": not a size"},
        {"sum:float@1K-=base,sum:float@4K-8K=base", "bytes 1K- are already pinned to base; the later pin wins"},
    };
    for (size_t i = 0; i < sizeof pins / sizeof pins[0]; ++i) {
        opf_finalize();
        CHECK_RC(opf_param_set("op_base_pin", pins[i][0]), OPF_SUCCESS);
        capture_begin();
        CHECK_RC(opf_init(), OPF_SUCCESS);
        const char *err = capture_end();
        CONTAINS(err, pins[i][1]);
    }
    opf_finalize();
    CHECK_RC(opf_param_set("op_base_pin", NULL), OPF_SUCCESS);
    CHECK_RC(opf_init(), OPF_SUCCESS);

    /* Set while initialized: accepted, in force at the next opf_init, and
     * the source and description say so. */
    opf_param_info_t info;
    CHECK_RC(opf_param_set("op_base_pin", "sum:float=base"), OPF_SUCCESS);
    CONTAINS(source_of("op_base_pin"), "API; applies at the next opf_init, in force until then: \"\"");
    CHECK(describe("op", &info) >= 0 && strstr(info.description, "applies at the next opf_init"),
          "op's description does not say when a change applies");
    CHECK(describe("op_base_pin", &info) >= 0 && strstr(info.description, "applies at the next opf_init"),
          "op_base_pin's description does not say when a change applies");
    reinit();
    CHECK(strcmp(source_of("op_base_pin"), "API") == 0, "after opf_init: source \"%s\"", source_of("op_base_pin"));
    CHECK_RC(opf_param_set("op_base_pin", NULL), OPF_SUCCESS);
    reinit();
}

static void clear_environment(void)
{
    char names[64][128];
    int n = 0;
    for (char **e = environ; *e && n < 64; ++e)
        if (strncmp(*e, "OPF_MCA_", 8) == 0) {
            const size_t len = strcspn(*e, "=");
            snprintf(names[n++], sizeof names[0], "%.*s", (int)len, *e);
        }
    for (int i = 0; i < n; ++i) unsetenv(names[i]);
}

int main(void)
{
    clear_environment();
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 2;
    }
    snprintf(user_path, sizeof user_path, "%s/user.conf", dir);
    snprintf(system_path, sizeof system_path, "%s/system.conf", dir);
    snprintf(capture_path, sizeof capture_path, "%s/stderr.txt", dir);
    snprintf(home_dir, sizeof home_dir, "%s/.opframe", dir);
    snprintf(home_file, sizeof home_file, "%s/mca-params.conf", home_dir);
    mkdir(home_dir, 0700);
    write_file(user_path, "");
    write_file(system_path, "");
    setenv("OPF_MCA_PARAM_FILE_USER", user_path, 1);
    setenv("OPF_MCA_PARAM_FILE_SYSTEM", system_path, 1);

    test_before_init();
    test_precedence();
    test_bad_values();
    test_file_syntax();
    test_parsers();
    test_synonyms();
    test_read_only();
    test_set_and_init();
    test_unknown_names();
    test_registration_errors();
    test_introspection();
    test_hostile_files();
    test_selection_params();
    opf_finalize();

    unlink(user_path);
    unlink(system_path);
    unlink(capture_path);
    unlink(home_file);
    rmdir(home_dir);
    rmdir(dir);
    return check_summary("params");
}
