package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// Config is everything the binary is told, parsed once at start and
// validated; it is passed down, never read from globals.
type Config struct {
	Addr         string
	RedisURL     string
	Redis        RedisTopology // Cluster or Sentinel instead of REDIS_URL
	Demo         bool
	BaseURL      string
	TimeZone     string
	EmbedOrigins []string
	LogFormat    string
	LogLevel     slog.Level
	Shutdown     time.Duration
	Drain        time.Duration // before Shutdown: /readyz answers 503, answers close their connections
	BodyTimeout  time.Duration // how long a request body may take to arrive
	LiveTick     time.Duration
	LivePerAddr  int // live sockets one client address may hold
	TrustProxy   bool
	AdminUser    string // first admin, created at start if missing
	AdminPass    string
	KeyLimit     int
	AddrLimit    int
	MetricsAddr  string // a listener of its own for /metrics
	MetricsToken string // or /metrics on Addr behind this bearer token
	AuditKeep    int    // audit rows kept in Redis per board
	DatabaseURL  string // PostgreSQL for the archive; empty: the SQLite file ArchivePath
	ArchivePath  string
	ArchiveGrace time.Duration
	Hooks        HooksConfig
}

// HooksConfig is how webhooks are found and sent (hooks.Options).
type HooksConfig struct {
	Tick         time.Duration // how often each board with webhooks is looked at
	Grace        time.Duration // a period is announced closed this long after its end
	AllowPrivate bool          // deliveries may go to private and loopback addresses
}

// RedisTopology names a Redis Cluster (seed nodes) or a Sentinel-watched
// primary, with the credentials and TLS of its data nodes; REDIS_URL carries
// its own.
type RedisTopology struct {
	ClusterAddrs     []string
	SentinelAddrs    []string
	MasterName       string
	Username         string
	Password         string
	TLS              bool
	SentinelPassword string
}

// Embedded reports whether the binary runs on its in-process store: no
// REDIS_URL, no Cluster, no Sentinel.
func (c Config) Embedded() bool {
	return c.RedisURL == "" && len(c.Redis.ClusterAddrs) == 0 && len(c.Redis.SentinelAddrs) == 0
}

// ArchiveTarget is what archive.Open opens.
func (c Config) ArchiveTarget() string {
	if c.DatabaseURL != "" {
		return c.DatabaseURL
	}
	return c.ArchivePath
}

// setting is one configuration entry: a flag, its environment variable, and
// its default. --help and docs/configuration.md list the same table (a test
// holds the page to it).
type setting struct {
	flag, env, def, help string
	boolean              bool // a switch: --demo alone means true
}

var settings = []setting{
	{"addr", "ADDR", ":8080", "address to listen on", false},
	{"redis-url", "REDIS_URL", "", "Redis to use, e.g. redis://localhost:6379/0; empty runs on the embedded in-memory store", false},
	{"redis-cluster-addrs", "REDIS_CLUSTER_ADDRS", "", "a Redis Cluster instead: some of its nodes, host:port,host:port (the rest are discovered)", false},
	{"redis-sentinel-addrs", "REDIS_SENTINEL_ADDRS", "", "Redis behind Sentinel instead: the sentinels, host:port,host:port (with REDIS_MASTER_NAME)", false},
	{"redis-master-name", "REDIS_MASTER_NAME", "", "the primary's name the sentinels monitor", false},
	{"redis-username", "REDIS_USERNAME", "", "ACL user of the Cluster or Sentinel data nodes (REDIS_URL carries its own)", false},
	{"redis-password", "REDIS_PASSWORD", "", "password of the Cluster or Sentinel data nodes (prefer the environment to the flag)", false},
	{"redis-tls", "REDIS_TLS", "false", "connect to the Cluster, or to Sentinel and its data nodes, over TLS (REDIS_URL: use rediss://)", true},
	{"redis-sentinel-password", "REDIS_SENTINEL_PASSWORD", "", "password of the sentinels themselves, when they require one", false},
	{"demo", "DEMO", "false", "create three demo boards and keep submitting scores to them", true},
	{"base-url", "BASE_URL", "", "public URL of the site, used in embed snippets (default: each request's own host)", false},
	{"timezone", "DEFAULT_TZ", "UTC", "IANA time zone for boards created without one (the demo boards too)", false},
	{"embed-origins", "EMBED_ORIGINS", "*", "origins that may frame /embed/ widgets, comma-separated (https://a.example,https://b.example), or * for any", false},
	{"log-format", "LOG_FORMAT", "text", "log format: text or json", false},
	{"log-level", "LOG_LEVEL", "info", "log level: debug, info, warn or error", false},
	{"drain-period", "DRAIN_PERIOD", "5s", "on SIGINT/SIGTERM, how long /readyz answers 503 and every answer carries Connection: close before the server stops taking requests (0s-5m)", false},
	{"shutdown-timeout", "SHUTDOWN_TIMEOUT", "10s", "how long to wait for requests to finish on SIGINT/SIGTERM, after the drain", false},
	{"body-timeout", "BODY_TIMEOUT", "30s", "how long a request body may take to arrive after its headers; a slower client gets 408 and its connection closed (1s-10m)", false},
	{"live-tick", "LIVE_TICK", "100ms", "how often changed boards are re-read and pushed to browsers (10ms-10s)", false},
	{"live-addr-limit", "LIVE_ADDR_LIMIT", "100", "live WebSockets one client address may hold at once (raise it for a room of viewers behind one NAT)", false},
	{"trust-proxy", "TRUST_PROXY", "false", "take client addresses from X-Forwarded-For and TLS from X-Forwarded-Proto (only behind your own proxy)", true},
	{"admin-user", "ADMIN_USER", "", "create this admin at start if it does not exist (with ADMIN_PASSWORD)", false},
	{"admin-password", "ADMIN_PASSWORD", "", "password of ADMIN_USER, at least 10 characters (prefer the environment to the flag)", false},
	{"api-key-limit", "API_KEY_LIMIT", "1200", "API requests per minute per key, counted in each replica", false},
	{"api-addr-limit", "API_ADDR_LIMIT", "600", "API requests per minute per client address, counted in each replica", false},
	{"metrics-addr", "METRICS_ADDR", "", "serve Prometheus /metrics on this address of its own, e.g. 127.0.0.1:9090 (not on --addr)", false},
	{"metrics-token", "METRICS_TOKEN", "", "also serve /metrics on --addr to requests with Authorization: Bearer <token> (16+ characters)", false},
	{"database-url", "DATABASE_URL", "", "PostgreSQL that archives closed periods, e.g. postgres://podium:secret@db:5432/podium; empty: the SQLite file --archive-path", false},
	{"archive-path", "ARCHIVE_PATH", "data/archive.db", "the embedded SQLite archive of closed periods, used when DATABASE_URL is empty", false},
	{"archive-grace", "ARCHIVE_GRACE", "1h", "how long after a period closes its final archive copy waits for late writes (1m-168h)", false},
	{"audit-keep", "AUDIT_KEEP", "100000", "audit rows (one per score or change) kept in Redis per board, 100-10000000", false},
	{"hooks-tick", "HOOKS_TICK", "1s", "how often each board with webhooks is checked for events and due deliveries (100ms-1m)", false},
	{"hooks-grace", "HOOKS_GRACE", "1m", "how long after a period ends its period.closed webhook waits for late writes (0s-24h)", false},
	{"hooks-allow-private", "HOOKS_ALLOW_PRIVATE", "false", "let webhooks register and reach loopback, private, link-local and local-name addresses (receivers inside your own network)", true},
}

// parseConfig reads flags over environment variables over defaults. It
// returns flag.ErrHelp after printing usage for --help.
func parseConfig(args []string, getenv func(string) string, out io.Writer) (Config, error) {
	fs := flag.NewFlagSet("web", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	vals := map[string]*string{}
	bools := map[string]*bool{}
	var envErrs []error
	for _, s := range settings {
		def := s.def
		if v := getenv(s.env); v != "" {
			def = v
		}
		if s.boolean {
			b, err := strconv.ParseBool(def)
			if err != nil {
				envErrs = append(envErrs, fmt.Errorf("%s %q must be true or false (1 or 0)", s.env, def))
			}
			bools[s.flag] = fs.Bool(s.flag, b, s.help)
			continue
		}
		vals[s.flag] = fs.String(s.flag, def, s.help)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(out)
			return Config{}, err
		}
		return Config{}, fmt.Errorf("%w (see --help)", err)
	}
	if fs.NArg() > 0 {
		return Config{}, fmt.Errorf("unexpected argument %q (see --help)", fs.Arg(0))
	}
	if len(envErrs) > 0 {
		return Config{}, errors.Join(envErrs...)
	}
	var cfg Config
	var errs []error
	var err error
	cfg.Addr = *vals["addr"]
	if cfg.Addr == "" {
		errs = append(errs, errors.New("--addr/ADDR must not be empty"))
	}
	cfg.RedisURL = *vals["redis-url"]
	if cfg.RedisURL != "" {
		if u, err := url.Parse(cfg.RedisURL); err != nil || (u.Scheme != "redis" && u.Scheme != "rediss" && u.Scheme != "unix") {
			errs = append(errs, fmt.Errorf("--redis-url/REDIS_URL %q must be a redis://, rediss:// or unix:// URL", redact(cfg.RedisURL)))
		}
	}
	cfg.Redis, err = parseTopology(cfg.RedisURL, vals, bools)
	errs = append(errs, err)
	cfg.Demo = *bools["demo"]
	cfg.BaseURL = strings.TrimRight(*vals["base-url"], "/")
	if cfg.BaseURL != "" {
		if u, err := url.Parse(cfg.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" {
			errs = append(errs, fmt.Errorf("--base-url/BASE_URL %q must be an absolute http(s) URL such as https://scores.example.com", cfg.BaseURL))
		}
	}
	cfg.TimeZone = *vals["timezone"]
	if _, err := time.LoadLocation(cfg.TimeZone); err != nil || cfg.TimeZone == "" || cfg.TimeZone == "Local" {
		errs = append(errs, fmt.Errorf("--timezone/DEFAULT_TZ %q is not an IANA time zone such as Europe/Paris", cfg.TimeZone))
	}
	for _, o := range strings.Split(*vals["embed-origins"], ",") {
		o = strings.TrimSpace(o)
		if o == "" {
			continue
		}
		if o == "null" { // pages without an origin (sandboxed frames): live socket only, never framing
			cfg.EmbedOrigins = append(cfg.EmbedOrigins, o)
			continue
		}
		if o != "*" && o != "'self'" {
			u, err := url.Parse(o)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || strings.ContainsAny(o, " ;'\"") {
				errs = append(errs, fmt.Errorf("--embed-origins/EMBED_ORIGINS: %q is not an origin such as https://blog.example.com", o))
				continue
			}
			o = u.Scheme + "://" + u.Host
		}
		cfg.EmbedOrigins = append(cfg.EmbedOrigins, o)
	}
	if len(cfg.EmbedOrigins) == 0 {
		errs = append(errs, errors.New("--embed-origins/EMBED_ORIGINS must list at least one origin, or *"))
	}
	cfg.LogFormat = *vals["log-format"]
	if cfg.LogFormat != "text" && cfg.LogFormat != "json" {
		errs = append(errs, fmt.Errorf("--log-format/LOG_FORMAT %q must be text or json", cfg.LogFormat))
	}
	if err := cfg.LogLevel.UnmarshalText([]byte(*vals["log-level"])); err != nil {
		errs = append(errs, fmt.Errorf("--log-level/LOG_LEVEL %q must be debug, info, warn or error", *vals["log-level"]))
	}
	cfg.Shutdown, err = time.ParseDuration(*vals["shutdown-timeout"])
	if err != nil || cfg.Shutdown <= 0 {
		errs = append(errs, fmt.Errorf("--shutdown-timeout/SHUTDOWN_TIMEOUT %q must be a duration such as 10s", *vals["shutdown-timeout"]))
	}
	if d, err := time.ParseDuration(*vals["drain-period"]); err != nil || d < 0 || d > 5*time.Minute {
		errs = append(errs, fmt.Errorf("--drain-period/DRAIN_PERIOD %q must be a duration from 0s to 5m", *vals["drain-period"]))
	} else {
		cfg.Drain = d
	}
	if d, err := time.ParseDuration(*vals["body-timeout"]); err != nil || d < time.Second || d > 10*time.Minute {
		errs = append(errs, fmt.Errorf("--body-timeout/BODY_TIMEOUT %q must be a duration from 1s to 10m", *vals["body-timeout"]))
	} else {
		cfg.BodyTimeout = d
	}
	cfg.TrustProxy = *bools["trust-proxy"]
	cfg.AdminUser, cfg.AdminPass = *vals["admin-user"], *vals["admin-password"]
	if (cfg.AdminUser == "") != (cfg.AdminPass == "") {
		errs = append(errs, errors.New("ADMIN_USER and ADMIN_PASSWORD go together: set both or neither"))
	}
	for _, lim := range []struct {
		name string
		dst  *int
	}{{"api-key-limit", &cfg.KeyLimit}, {"api-addr-limit", &cfg.AddrLimit}} {
		n, err := strconv.Atoi(*vals[lim.name])
		if err != nil || n < 1 {
			errs = append(errs, fmt.Errorf("--%s %q must be a whole number of requests a minute, at least 1", lim.name, *vals[lim.name]))
		}
		*lim.dst = n
	}
	if n, err := strconv.Atoi(*vals["audit-keep"]); err != nil || n < 100 || n > 10_000_000 {
		errs = append(errs, fmt.Errorf("--audit-keep/AUDIT_KEEP %q must be a whole number of rows from 100 to 10000000", *vals["audit-keep"]))
	} else {
		cfg.AuditKeep = n
	}
	cfg.DatabaseURL, cfg.ArchivePath = *vals["database-url"], *vals["archive-path"]
	if u := cfg.DatabaseURL; u != "" && !strings.HasPrefix(u, "postgres://") && !strings.HasPrefix(u, "postgresql://") {
		errs = append(errs, errors.New("--database-url/DATABASE_URL must be a postgres:// or postgresql:// URL (the value is not shown: it may hold a password)"))
	}
	if cfg.DatabaseURL == "" && strings.TrimSpace(cfg.ArchivePath) == "" {
		errs = append(errs, errors.New("--archive-path/ARCHIVE_PATH must name a file when DATABASE_URL is empty"))
	}
	if d, err := time.ParseDuration(*vals["archive-grace"]); err != nil || d < time.Minute || d > 168*time.Hour {
		errs = append(errs, fmt.Errorf("--archive-grace/ARCHIVE_GRACE %q must be a duration from 1m to 168h", *vals["archive-grace"]))
	} else {
		cfg.ArchiveGrace = d
	}
	cfg.MetricsAddr, cfg.MetricsToken = *vals["metrics-addr"], *vals["metrics-token"]
	if cfg.MetricsAddr != "" {
		if _, _, err := net.SplitHostPort(cfg.MetricsAddr); err != nil {
			errs = append(errs, fmt.Errorf("--metrics-addr/METRICS_ADDR %q must be host:port such as 127.0.0.1:9090", cfg.MetricsAddr))
		}
	}
	if t := cfg.MetricsToken; t != "" && (len(t) < 16 || strings.ContainsAny(t, " \t\r\n")) {
		errs = append(errs, errors.New("--metrics-token/METRICS_TOKEN must be at least 16 characters without spaces"))
	}
	if n, err := strconv.Atoi(*vals["live-addr-limit"]); err != nil || n < 1 || n > 1_000_000 {
		errs = append(errs, fmt.Errorf("--live-addr-limit/LIVE_ADDR_LIMIT %q must be a whole number of sockets from 1 to 1000000", *vals["live-addr-limit"]))
	} else {
		cfg.LivePerAddr = n
	}
	cfg.LiveTick, err = time.ParseDuration(*vals["live-tick"])
	if err != nil || cfg.LiveTick < 10*time.Millisecond || cfg.LiveTick > 10*time.Second {
		errs = append(errs, fmt.Errorf("--live-tick/LIVE_TICK %q must be a duration from 10ms to 10s", *vals["live-tick"]))
	}
	if d, err := time.ParseDuration(*vals["hooks-tick"]); err != nil || d < 100*time.Millisecond || d > time.Minute {
		errs = append(errs, fmt.Errorf("--hooks-tick/HOOKS_TICK %q must be a duration from 100ms to 1m", *vals["hooks-tick"]))
	} else {
		cfg.Hooks.Tick = d
	}
	if d, err := time.ParseDuration(*vals["hooks-grace"]); err != nil || d < 0 || d > 24*time.Hour {
		errs = append(errs, fmt.Errorf("--hooks-grace/HOOKS_GRACE %q must be a duration from 0s to 24h", *vals["hooks-grace"]))
	} else {
		cfg.Hooks.Grace = d
	}
	cfg.Hooks.AllowPrivate = *bools["hooks-allow-private"]
	return cfg, errors.Join(errs...)
}

// parseTopology reads the Cluster and Sentinel settings and refuses
// combinations that cannot mean one Redis.
func parseTopology(redisURL string, vals map[string]*string, bools map[string]*bool) (RedisTopology, error) {
	t := RedisTopology{
		MasterName: strings.TrimSpace(*vals["redis-master-name"]),
		Username:   *vals["redis-username"], Password: *vals["redis-password"], TLS: *bools["redis-tls"],
		SentinelPassword: *vals["redis-sentinel-password"],
	}
	var errs []error
	addrs := func(flagName, env string) []string {
		var out []string
		for _, a := range strings.Split(*vals[flagName], ",") {
			if a = strings.TrimSpace(a); a == "" {
				continue
			}
			if host, port, err := net.SplitHostPort(a); err != nil || host == "" || port == "" {
				errs = append(errs, fmt.Errorf("--%s/%s: %q is not host:port such as redis-1:6379", flagName, env, a))
				continue
			}
			out = append(out, a)
		}
		return out
	}
	t.ClusterAddrs = addrs("redis-cluster-addrs", "REDIS_CLUSTER_ADDRS")
	t.SentinelAddrs = addrs("redis-sentinel-addrs", "REDIS_SENTINEL_ADDRS")
	cluster, sentinel := *vals["redis-cluster-addrs"] != "", *vals["redis-sentinel-addrs"] != ""
	if cluster && len(t.ClusterAddrs) == 0 && len(errs) == 0 {
		errs = append(errs, errors.New("--redis-cluster-addrs/REDIS_CLUSTER_ADDRS lists no host:port"))
	}
	if sentinel && len(t.SentinelAddrs) == 0 && len(errs) == 0 {
		errs = append(errs, errors.New("--redis-sentinel-addrs/REDIS_SENTINEL_ADDRS lists no host:port"))
	}
	switch {
	case redisURL != "" && (cluster || sentinel):
		errs = append(errs, errors.New("REDIS_URL names one Redis; REDIS_CLUSTER_ADDRS and REDIS_SENTINEL_ADDRS name others: set only one of the three"))
	case cluster && sentinel:
		errs = append(errs, errors.New("REDIS_CLUSTER_ADDRS and REDIS_SENTINEL_ADDRS exclude each other: a Redis Cluster fails over by itself, without sentinels"))
	case sentinel && t.MasterName == "":
		errs = append(errs, errors.New("REDIS_SENTINEL_ADDRS needs REDIS_MASTER_NAME, the name the sentinels monitor (sentinel monitor <name> ...)"))
	case !sentinel && t.MasterName != "":
		errs = append(errs, errors.New("REDIS_MASTER_NAME is for Sentinel: set REDIS_SENTINEL_ADDRS too"))
	case !sentinel && t.SentinelPassword != "":
		errs = append(errs, errors.New("REDIS_SENTINEL_PASSWORD is for Sentinel: set REDIS_SENTINEL_ADDRS too"))
	case !cluster && !sentinel && (t.Username != "" || t.Password != "" || t.TLS):
		errs = append(errs, errors.New("REDIS_USERNAME, REDIS_PASSWORD and REDIS_TLS are for a Cluster or Sentinel; "+
			"for one Redis put them in REDIS_URL (rediss://user:password@host:6379/0)"))
	}
	return t, errors.Join(errs...)
}

func usage(out io.Writer) {
	fmt.Fprintln(out, "Usage: web [flags]\n\nPodium serves live leaderboards kept in Redis. Every flag may also be set by its")
	fmt.Fprintln(out, "environment variable; a flag wins over the variable.")
	fmt.Fprintln(out)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "flag\tenvironment\tdefault\tmeaning")
	for _, s := range settings {
		def := s.def
		if def == "" {
			def = "(none)"
		}
		fmt.Fprintf(tw, "--%s\t%s\t%s\t%s\n", s.flag, s.env, def, s.help)
	}
	tw.Flush()
}

// redact hides a password in a Redis URL before it reaches a log or error.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(an unreadable URL)"
	}
	if u.User == nil {
		return raw
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}
