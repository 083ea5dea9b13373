package app

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"text/tabwriter"
	"time"
)

// Config is everything the binary is told, parsed once at start and
// validated; it is passed down, never read from globals. The settings
// table (settings.go) fills it: each field has one row there.
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
	ReadCache    bool // answer public reads of open periods from live.Cache
	LivePerAddr  int  // live sockets one client address may hold
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
	OIDC         OIDCConfig
}

// OIDCConfig is sign-in with the organisation (web/signin): its OpenID
// provider and this site's client there. Empty Issuer: off.
type OIDCConfig struct {
	Issuer, ClientID, ClientSecret string
	Scopes                         []string
	GroupsClaim                    string
	AllowUnverified                bool
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

// ParseConfig reads flags over environment variables over defaults, for
// every row of the settings table, then checks the settings that go
// together. It returns flag.ErrHelp after printing usage for --help.
func ParseConfig(args []string, getenv func(string) string, out io.Writer) (Config, error) {
	fs := flag.NewFlagSet("web", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	vals := make([]text, len(settings))
	for i, s := range settings {
		vals[i] = text{v: s.Default, isBool: s.Switch}
		if v := getenv(s.Env); v != "" {
			vals[i].v = v
		}
		fs.Var(&vals[i], s.Flag, s.Help)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			Usage(out)
			return Config{}, err
		}
		return Config{}, fmt.Errorf("%w (see --help)", err)
	}
	if fs.NArg() > 0 {
		return Config{}, fmt.Errorf("unexpected argument %q (see --help)", fs.Arg(0))
	}
	var cfg Config
	var errs []error
	for i, s := range settings {
		if err := s.set(&cfg, vals[i].v); err != nil {
			errs = append(errs, fmt.Errorf("--%s/%s %w", s.Flag, s.Env, err))
		}
	}
	errs = append(errs, cfg.together())
	return cfg, errors.Join(errs...)
}

// text is a setting's value as given; a switch may stand alone (--demo).
type text struct {
	v      string
	isBool bool
}

func (t *text) String() string     { return t.v }
func (t *text) Set(v string) error { t.v = v; return nil }
func (t *text) IsBoolFlag() bool   { return t.isBool }

// together refuses settings that are each right but wrong together.
func (c Config) together() error {
	var errs []error
	if (c.AdminUser == "") != (c.AdminPass == "") {
		errs = append(errs, errors.New("ADMIN_USER and ADMIN_PASSWORD go together: set both or neither"))
	}
	if (c.OIDC.Issuer == "") != (c.OIDC.ClientID == "") || (c.OIDC.Issuer == "" && c.OIDC.ClientSecret != "") {
		errs = append(errs, errors.New("OIDC_ISSUER and OIDC_CLIENT_ID go together (with OIDC_CLIENT_SECRET unless the provider takes a public client): set them all or none"))
	}
	if c.DatabaseURL == "" && strings.TrimSpace(c.ArchivePath) == "" {
		errs = append(errs, errors.New("--archive-path/ARCHIVE_PATH must name a file when DATABASE_URL is empty"))
	}
	return errors.Join(append(errs, c.Redis.together(c.RedisURL))...)
}

// together refuses Cluster and Sentinel settings that cannot mean one Redis.
func (t RedisTopology) together(redisURL string) error {
	cluster, sentinel := len(t.ClusterAddrs) > 0, len(t.SentinelAddrs) > 0
	switch {
	case redisURL != "" && (cluster || sentinel):
		return errors.New("REDIS_URL names one Redis; REDIS_CLUSTER_ADDRS and REDIS_SENTINEL_ADDRS name others: set only one of the three")
	case cluster && sentinel:
		return errors.New("REDIS_CLUSTER_ADDRS and REDIS_SENTINEL_ADDRS exclude each other: a Redis Cluster fails over by itself, without sentinels")
	case sentinel && t.MasterName == "":
		return errors.New("REDIS_SENTINEL_ADDRS needs REDIS_MASTER_NAME, the name the sentinels monitor (sentinel monitor <name> ...)")
	case !sentinel && t.MasterName != "":
		return errors.New("REDIS_MASTER_NAME is for Sentinel: set REDIS_SENTINEL_ADDRS too")
	case !sentinel && t.SentinelPassword != "":
		return errors.New("REDIS_SENTINEL_PASSWORD is for Sentinel: set REDIS_SENTINEL_ADDRS too")
	case !cluster && !sentinel && (t.Username != "" || t.Password != "" || t.TLS):
		return errors.New("REDIS_USERNAME, REDIS_PASSWORD and REDIS_TLS are for a Cluster or Sentinel; " +
			"for one Redis put them in REDIS_URL (rediss://user:password@host:6379/0)")
	}
	return nil
}

// Usage prints the settings table, as --help shows it.
func Usage(out io.Writer) {
	fmt.Fprintln(out, "Usage: web [flags]\n\nPodium serves live leaderboards kept in Redis. Every flag may also be set by its")
	fmt.Fprintln(out, "environment variable; a flag wins over the variable.")
	fmt.Fprintln(out)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "flag\tenvironment\tdefault\tmeaning")
	for _, s := range settings {
		def := s.Default
		if def == "" {
			def = "(none)"
		}
		fmt.Fprintf(tw, "--%s\t%s\t%s\t%s\n", s.Flag, s.Env, def, s.Help)
	}
	tw.Flush()
}

// Redact hides a password in a Redis URL before it reaches a log or error.
func Redact(raw string) string {
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
