package app

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// A Setting is declared once, here: its flag, its environment variable, its
// default, its help (--help and docs/configuration.md, which a test holds
// to this table), and how its text is checked and fills the Config.
type Setting struct {
	Flag, Env, Default, Help string
	Switch                   bool // a flag that may stand alone: --demo means true
	set                      func(c *Config, v string) error
}

var settings = []Setting{
	{Flag: "addr", Env: "ADDR", Default: ":8080", Help: "address to listen on",
		set: textOf(func(c *Config) *string { return &c.Addr }, notEmpty)},
	{Flag: "redis-url", Env: "REDIS_URL", Help: "Redis to use, e.g. redis://localhost:6379/0; empty runs on the embedded in-memory store",
		set: textOf(func(c *Config) *string { return &c.RedisURL }, redisURL)},
	{Flag: "redis-cluster-addrs", Env: "REDIS_CLUSTER_ADDRS", Help: "a Redis Cluster instead: some of its nodes, host:port,host:port (the rest are discovered)",
		set: addrsOf(func(c *Config) *[]string { return &c.Redis.ClusterAddrs })},
	{Flag: "redis-sentinel-addrs", Env: "REDIS_SENTINEL_ADDRS", Help: "Redis behind Sentinel instead: the sentinels, host:port,host:port (with REDIS_MASTER_NAME)",
		set: addrsOf(func(c *Config) *[]string { return &c.Redis.SentinelAddrs })},
	{Flag: "redis-master-name", Env: "REDIS_MASTER_NAME", Help: "the primary's name the sentinels monitor",
		set: textOf(func(c *Config) *string { return &c.Redis.MasterName }, trimmed)},
	{Flag: "redis-username", Env: "REDIS_USERNAME", Help: "ACL user of the Cluster or Sentinel data nodes (REDIS_URL carries its own)",
		set: textOf(func(c *Config) *string { return &c.Redis.Username }, nil)},
	{Flag: "redis-password", Env: "REDIS_PASSWORD", Help: "password of the Cluster or Sentinel data nodes (prefer the environment to the flag)",
		set: textOf(func(c *Config) *string { return &c.Redis.Password }, nil)},
	{Flag: "redis-tls", Env: "REDIS_TLS", Default: "false", Switch: true, Help: "connect to the Cluster, or to Sentinel and its data nodes, over TLS (REDIS_URL: use rediss://)",
		set: switchOf(func(c *Config) *bool { return &c.Redis.TLS })},
	{Flag: "redis-sentinel-password", Env: "REDIS_SENTINEL_PASSWORD", Help: "password of the sentinels themselves, when they require one",
		set: textOf(func(c *Config) *string { return &c.Redis.SentinelPassword }, nil)},
	{Flag: "demo", Env: "DEMO", Default: "false", Switch: true, Help: "create four demo boards (one runs a weekly league) and keep submitting scores to them",
		set: switchOf(func(c *Config) *bool { return &c.Demo })},
	{Flag: "base-url", Env: "BASE_URL", Help: "public URL of the site, used in embed snippets (default: each request's own host)",
		set: textOf(func(c *Config) *string { return &c.BaseURL }, baseURL)},
	{Flag: "timezone", Env: "DEFAULT_TZ", Default: "UTC", Help: "IANA time zone for boards created without one (the demo boards too)",
		set: textOf(func(c *Config) *string { return &c.TimeZone }, timeZone)},
	{Flag: "embed-origins", Env: "EMBED_ORIGINS", Default: "*", Help: "origins that may frame /embed/ widgets, comma-separated (https://a.example,https://b.example), or * for any",
		set: func(c *Config, v string) (err error) { c.EmbedOrigins, err = embedOrigins(v); return err }},
	{Flag: "log-format", Env: "LOG_FORMAT", Default: "text", Help: "log format: text or json",
		set: textOf(func(c *Config) *string { return &c.LogFormat }, oneOf("text", "json"))},
	{Flag: "log-level", Env: "LOG_LEVEL", Default: "info", Help: "log level: debug, info, warn or error",
		set: func(c *Config, v string) error {
			if c.LogLevel.UnmarshalText([]byte(v)) != nil {
				return fmt.Errorf("%q must be debug, info, warn or error", v)
			}
			return nil
		}},
	{Flag: "drain-period", Env: "DRAIN_PERIOD", Default: "5s", Help: "on SIGINT/SIGTERM, how long /readyz answers 503 and every answer carries Connection: close before the server stops taking requests (0s-5m)",
		set: durationOf(func(c *Config) *time.Duration { return &c.Drain }, "0s", "5m")},
	{Flag: "shutdown-timeout", Env: "SHUTDOWN_TIMEOUT", Default: "10s", Help: "how long to wait for requests to finish on SIGINT/SIGTERM, after the drain",
		set: durationOf(func(c *Config) *time.Duration { return &c.Shutdown }, "1ms", "")},
	{Flag: "body-timeout", Env: "BODY_TIMEOUT", Default: "30s", Help: "how long a request body may take to arrive after its headers; a slower client gets 408 and its connection closed (1s-10m)",
		set: durationOf(func(c *Config) *time.Duration { return &c.BodyTimeout }, "1s", "10m")},
	{Flag: "live-tick", Env: "LIVE_TICK", Default: "100ms", Help: "how often changed boards are re-read and pushed to browsers (10ms-10s)",
		set: durationOf(func(c *Config) *time.Duration { return &c.LiveTick }, "10ms", "10s")},
	{Flag: "read-cache", Env: "READ_CACHE", Default: "true", Switch: true, Help: "answer the pages' and the API's reads of open periods from a cache in each replica, kept fresh by keyspace notifications: at most one LIVE_TICK behind a write made through another replica; false reads Redis every time",
		set: switchOf(func(c *Config) *bool { return &c.ReadCache })},
	{Flag: "live-addr-limit", Env: "LIVE_ADDR_LIMIT", Default: "100", Help: "live WebSockets one client address may hold at once (raise it for a room of viewers behind one NAT)",
		set: countOf(func(c *Config) *int { return &c.LivePerAddr }, 1, 1_000_000, "sockets")},
	{Flag: "trust-proxy", Env: "TRUST_PROXY", Default: "false", Switch: true, Help: "take client addresses from X-Forwarded-For and TLS from X-Forwarded-Proto (only behind your own proxy)",
		set: switchOf(func(c *Config) *bool { return &c.TrustProxy })},
	{Flag: "admin-user", Env: "ADMIN_USER", Help: "create this admin at start if it does not exist (with ADMIN_PASSWORD)",
		set: textOf(func(c *Config) *string { return &c.AdminUser }, nil)},
	{Flag: "admin-password", Env: "ADMIN_PASSWORD", Help: "password of ADMIN_USER, at least 10 characters (prefer the environment to the flag)",
		set: textOf(func(c *Config) *string { return &c.AdminPass }, nil)},
	{Flag: "api-key-limit", Env: "API_KEY_LIMIT", Default: "1200", Help: "API requests per minute per key, counted in each replica",
		set: countOf(func(c *Config) *int { return &c.KeyLimit }, 1, 0, "requests a minute")},
	{Flag: "api-addr-limit", Env: "API_ADDR_LIMIT", Default: "600", Help: "API requests per minute per client address, counted in each replica",
		set: countOf(func(c *Config) *int { return &c.AddrLimit }, 1, 0, "requests a minute")},
	{Flag: "metrics-addr", Env: "METRICS_ADDR", Help: "serve Prometheus /metrics on this address of its own, e.g. 127.0.0.1:9090 (not on --addr)",
		set: textOf(func(c *Config) *string { return &c.MetricsAddr }, hostPort)},
	{Flag: "metrics-token", Env: "METRICS_TOKEN", Help: "also serve /metrics on --addr to requests with Authorization: Bearer <token> (16+ characters)",
		set: textOf(func(c *Config) *string { return &c.MetricsToken }, token)},
	{Flag: "database-url", Env: "DATABASE_URL", Help: "PostgreSQL that archives closed periods, e.g. postgres://podium:secret@db:5432/podium; empty: the SQLite file --archive-path",
		set: textOf(func(c *Config) *string { return &c.DatabaseURL }, postgresURL)},
	{Flag: "archive-path", Env: "ARCHIVE_PATH", Default: "data/archive.db", Help: "the embedded SQLite archive of closed periods, used when DATABASE_URL is empty",
		set: textOf(func(c *Config) *string { return &c.ArchivePath }, nil)},
	{Flag: "archive-grace", Env: "ARCHIVE_GRACE", Default: "1h", Help: "how long after a period closes its final archive copy waits for late writes (1m-168h)",
		set: durationOf(func(c *Config) *time.Duration { return &c.ArchiveGrace }, "1m", "168h")},
	{Flag: "audit-keep", Env: "AUDIT_KEEP", Default: "100000", Help: "audit rows (one per score or change) kept in Redis per board (trimmed in steps of 1%, at most 1000 rows), 100-10000000",
		set: countOf(func(c *Config) *int { return &c.AuditKeep }, 100, 10_000_000, "rows")},
	{Flag: "hooks-tick", Env: "HOOKS_TICK", Default: "1s", Help: "how often each board with webhooks is checked for events and due deliveries (100ms-1m)",
		set: durationOf(func(c *Config) *time.Duration { return &c.Hooks.Tick }, "100ms", "1m")},
	{Flag: "hooks-grace", Env: "HOOKS_GRACE", Default: "1m", Help: "how long after a period ends its period.closed webhook waits for late writes (0s-24h)",
		set: durationOf(func(c *Config) *time.Duration { return &c.Hooks.Grace }, "0s", "24h")},
	{Flag: "hooks-allow-private", Env: "HOOKS_ALLOW_PRIVATE", Default: "false", Switch: true, Help: "let webhooks register and reach loopback, private, link-local and local-name addresses (receivers inside your own network)",
		set: switchOf(func(c *Config) *bool { return &c.Hooks.AllowPrivate })},
	{Flag: "oidc-issuer", Env: "OIDC_ISSUER", Help: "sign-in with your organisation: the OpenID Connect issuer, e.g. https://accounts.google.com (with OIDC_CLIENT_ID, OIDC_CLIENT_SECRET and BASE_URL; register BASE_URL/auth/callback there)",
		set: textOf(func(c *Config) *string { return &c.OIDC.Issuer }, issuerURL)},
	{Flag: "oidc-client-id", Env: "OIDC_CLIENT_ID", Help: "this site's client id at the OpenID provider",
		set: textOf(func(c *Config) *string { return &c.OIDC.ClientID }, trimmed)},
	{Flag: "oidc-client-secret", Env: "OIDC_CLIENT_SECRET", Help: "this site's client secret at the OpenID provider (prefer the environment to the flag)",
		set: textOf(func(c *Config) *string { return &c.OIDC.ClientSecret }, nil)},
	{Flag: "oidc-scopes", Env: "OIDC_SCOPES", Default: "openid email profile", Help: "scopes asked of the OpenID provider, space-separated; add the one that brings groups if your provider needs it (e.g. groups)",
		set: func(c *Config, v string) error {
			c.OIDC.Scopes = strings.Fields(v)
			if len(c.OIDC.Scopes) == 0 || c.OIDC.Scopes[0] != "openid" {
				return fmt.Errorf("%q must start with openid", v)
			}
			return nil
		}},
	{Flag: "oidc-allow-unverified-email", Env: "OIDC_ALLOW_UNVERIFIED_EMAIL", Default: "false", Switch: true, Help: "admit addresses the ID token does not mark email_verified (only for a provider that never sends the claim and lets nobody pick an unchecked address)",
		set: switchOf(func(c *Config) *bool { return &c.OIDC.AllowUnverified })},
	{Flag: "oidc-groups-claim", Env: "OIDC_GROUPS_CLAIM", Default: "groups", Help: "the ID token claim that lists a person's groups, for boards' allow-lists",
		set: textOf(func(c *Config) *string { return &c.OIDC.GroupsClaim }, notEmpty)},
}

// Settings is the table, in the order --help lists it.
func Settings() []Setting { return settings }

// textOf fills a string field after check (nil: any text).
func textOf(field func(*Config) *string, check func(string) (string, error)) func(*Config, string) error {
	return func(c *Config, v string) error {
		if check != nil {
			var err error
			if v, err = check(v); err != nil {
				return err
			}
		}
		*field(c) = v
		return nil
	}
}

func switchOf(field func(*Config) *bool) func(*Config, string) error {
	return func(c *Config, v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("%q must be true or false (1 or 0)", v)
		}
		*field(c) = b
		return nil
	}
}

// durationOf fills a duration from min to max ("" for no bound above).
func durationOf(field func(*Config) *time.Duration, min, max string) func(*Config, string) error {
	lo, _ := time.ParseDuration(min)
	hi, _ := time.ParseDuration(max)
	return func(c *Config, v string) error {
		d, err := time.ParseDuration(v)
		switch {
		case max == "" && (err != nil || d < lo):
			return fmt.Errorf("%q must be a positive duration such as 10s", v)
		case max != "" && (err != nil || d < lo || d > hi):
			return fmt.Errorf("%q must be a duration from %s to %s", v, min, max)
		}
		*field(c) = d
		return nil
	}
}

// countOf fills a whole number from min to max (0 for no bound above).
func countOf(field func(*Config) *int, min, max int, unit string) func(*Config, string) error {
	return func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		switch {
		case max == 0 && (err != nil || n < min):
			return fmt.Errorf("%q must be a whole number of %s, at least %d", v, unit, min)
		case max != 0 && (err != nil || n < min || n > max):
			return fmt.Errorf("%q must be a whole number of %s from %d to %d", v, unit, min, max)
		}
		*field(c) = n
		return nil
	}
}

func notEmpty(v string) (string, error) {
	if v == "" {
		return "", errors.New("must not be empty")
	}
	return v, nil
}

func trimmed(v string) (string, error) { return strings.TrimSpace(v), nil }

func oneOf(choices ...string) func(string) (string, error) {
	return func(v string) (string, error) {
		for _, c := range choices {
			if v == c {
				return v, nil
			}
		}
		return "", fmt.Errorf("%q must be %s", v, strings.Join(choices, " or "))
	}
}

func redisURL(v string) (string, error) {
	if v == "" {
		return v, nil
	}
	if u, err := url.Parse(v); err != nil || (u.Scheme != "redis" && u.Scheme != "rediss" && u.Scheme != "unix") {
		return "", fmt.Errorf("%q must be a redis://, rediss:// or unix:// URL", Redact(v))
	}
	return v, nil
}

func postgresURL(v string) (string, error) {
	if v != "" && !strings.HasPrefix(v, "postgres://") && !strings.HasPrefix(v, "postgresql://") {
		return "", errors.New("must be a postgres:// or postgresql:// URL (the value is not shown: it may hold a password)")
	}
	return v, nil
}

func baseURL(v string) (string, error) {
	v = strings.TrimRight(v, "/")
	if v == "" {
		return v, nil
	}
	if u, err := url.Parse(v); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" {
		return "", fmt.Errorf("%q must be an absolute http(s) URL such as https://scores.example.com", v)
	}
	return v, nil
}

func timeZone(v string) (string, error) {
	if _, err := time.LoadLocation(v); err != nil || v == "" || v == "Local" {
		return "", fmt.Errorf("%q is not an IANA time zone such as Europe/Paris", v)
	}
	return v, nil
}

func hostPort(v string) (string, error) {
	if v == "" {
		return v, nil
	}
	if _, _, err := net.SplitHostPort(v); err != nil {
		return "", fmt.Errorf("%q must be host:port such as 127.0.0.1:9090", v)
	}
	return v, nil
}

func token(v string) (string, error) {
	if v != "" && (len(v) < 16 || strings.ContainsAny(v, " \t\r\n")) {
		return "", errors.New("must be at least 16 characters without spaces")
	}
	return v, nil
}

// addrsOf fills a list of host:port.
func addrsOf(field func(*Config) *[]string) func(*Config, string) error {
	return func(c *Config, v string) error {
		var out []string
		var errs []error
		for _, a := range strings.Split(v, ",") {
			if a = strings.TrimSpace(a); a == "" {
				continue
			}
			if host, port, err := net.SplitHostPort(a); err != nil || host == "" || port == "" {
				errs = append(errs, fmt.Errorf("%q is not host:port such as redis-1:6379", a))
				continue
			}
			out = append(out, a)
		}
		if v != "" && len(out) == 0 && len(errs) == 0 {
			errs = append(errs, errors.New("lists no host:port"))
		}
		*field(c) = out
		return errors.Join(errs...)
	}
}

// embedOrigins reads the origins that may frame widgets: *, 'self', null
// (pages without an origin: live socket only, never framing) or http(s)
// origins.
func embedOrigins(v string) ([]string, error) {
	var out []string
	var errs []error
	for _, o := range strings.Split(v, ",") {
		o = strings.TrimSpace(o)
		switch {
		case o == "":
			continue
		case o == "null", o == "*", o == "'self'":
		default:
			u, err := url.Parse(o)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || strings.ContainsAny(o, " ;'\"") {
				errs = append(errs, fmt.Errorf("%q is not an origin such as https://blog.example.com", o))
				continue
			}
			o = u.Scheme + "://" + u.Host
		}
		out = append(out, o)
	}
	if len(out) == 0 && len(errs) == 0 {
		errs = append(errs, errors.New("must list at least one origin, or *"))
	}
	return out, errors.Join(errs...)
}

// issuerURL is an OpenID issuer: https (http only on loopback, for tests and
// a provider on the same machine), no query or fragment.
func issuerURL(v string) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", nil
	}
	u, err := url.Parse(v)
	if err != nil || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("%q must be an issuer URL such as https://accounts.google.com", v)
	}
	if u.Scheme != "https" && !(u.Scheme == "http" && isLoopback(u.Hostname())) {
		return "", fmt.Errorf("%q must use https (http only on a loopback address)", v)
	}
	return v, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
