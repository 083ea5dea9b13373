package access

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"
	"golang.org/x/crypto/bcrypt"
)

// Accounts are the console's users. A site admin may do everything; a board
// user only what their roles on boards allow (Roles). The kind is part of the
// stored value, so creating an account and choosing its kind is one write,
// and every account made before kinds existed stays a site admin:
//
//	podium:admins  user -> bcrypt hash            (a site admin)
//	               user -> "board:" + bcrypt hash (a board user)
//
// where the hash is "!" for an account without a password, which signs in
// only with the organisation's OpenID provider (its name is the email).
type Accounts struct {
	rdb  redis.UniversalClient
	cost int
}

// NewAccounts uses bcrypt at cost (bcrypt.DefaultCost when 0).
func NewAccounts(rdb redis.UniversalClient, cost int) *Accounts {
	if cost == 0 {
		cost = bcrypt.DefaultCost
	}
	return &Accounts{rdb: rdb, cost: cost}
}

// boardUser marks the stored value of a board user's account.
const boardUser = "board:"

// Account is a console user.
type Account struct {
	Name      string
	SiteAdmin bool // every board, users, keys; otherwise their roles only
	Password  bool // false: signs in only with the organisation (OIDC)
}

func accountOf(user, stored string) Account {
	return Account{Name: user, SiteAdmin: !strings.HasPrefix(stored, boardUser), Password: strings.TrimPrefix(stored, boardUser) != noPassword}
}

// Create adds a site admin; ErrExists if the name is taken.
func (a *Accounts) Create(ctx context.Context, user, password string) error {
	return a.create(ctx, user, password, true)
}

// CreateBoardUser adds a user who may do only what their roles on boards
// allow; ErrExists if the name is taken.
func (a *Accounts) CreateBoardUser(ctx context.Context, user, password string) error {
	return a.create(ctx, user, password, false)
}

// NoPassword is the password of an account that signs in only through the
// organisation's OpenID provider: CreateBoardUser(ctx, email, NoPassword).
const NoPassword = ""

// noPassword is what such an account stores instead of a hash.
const noPassword = "!"

func (a *Accounts) create(ctx context.Context, user, password string, site bool) error {
	if err := CheckUser(user); err != nil {
		return err
	}
	stored := noPassword
	if password != NoPassword {
		if err := CheckPassword(password); err != nil {
			return err
		}
		hash, err := bcrypt.GenerateFromPassword([]byte(password), a.cost)
		if err != nil {
			return fmt.Errorf("access: hash password: %w", err)
		}
		stored = string(hash)
	} else if !strings.Contains(user, "@") {
		return errors.Join(ErrInvalid, errors.New("an account without a password signs in with its organisation, by its email address: name it by that address"))
	}
	if !site {
		stored = boardUser + stored
	}
	ok, err := a.rdb.HSetNX(ctx, adminsKey, user, stored).Result()
	if err != nil {
		return fmt.Errorf("access: create admin %q: %w", user, err)
	}
	if !ok {
		return fmt.Errorf("admin %q: %w", user, ErrExists)
	}
	// A new account holds no role: any an earlier account of the name left
	// (its removal drops them after the account, and may stop half-way)
	// goes now, before anyone can give this one a role.
	if err := a.rdb.Del(ctx, userRolesKey(user)).Err(); err != nil {
		return fmt.Errorf("access: clear the roles of the new user %q: %w", user, err)
	}
	return nil
}

// dummies holds, per bcrypt cost, a hash that Verify compares against when
// the user does not exist. It must have the Accounts' own cost: a cheaper
// dummy makes a wrong name answer faster than a wrong password, which tells
// anyone timing the sign-in form which admin names exist. Each is made on
// first use rather than at init, so tests at bcrypt.MinCost never pay for a
// cost-10 hash.
var dummies sync.Map // int -> func() ([]byte, error)

func dummyHash(cost int) ([]byte, error) {
	f, ok := dummies.Load(cost)
	if !ok {
		f, _ = dummies.LoadOrStore(cost, sync.OnceValues(func() ([]byte, error) {
			return bcrypt.GenerateFromPassword([]byte("podium-dummy-password"), cost)
		}))
	}
	return f.(func() ([]byte, error))()
}

// Verify checks a user's password. Every failure is ErrBadCredentials and
// costs one bcrypt comparison at the Accounts' cost, whether or not the user
// exists; except a name over MaxUserLen or a password over MaxPassword, which
// no account can have, and which are refused at once without touching Redis
// or hashing a huge input (the answer is as fast for every name).
func (a *Accounts) Verify(ctx context.Context, user, password string) error {
	if len(user) > MaxUserLen || len(password) > MaxPassword {
		return ErrBadCredentials
	}
	stored, err := a.rdb.HGet(ctx, adminsKey, user).Result()
	if errors.Is(err, redis.Nil) || strings.TrimPrefix(stored, boardUser) == noPassword {
		// No account, or one without a password: the same bcrypt work.
		dummy, err := dummyHash(a.cost)
		if err != nil {
			return fmt.Errorf("access: dummy hash at cost %d: %w", a.cost, err)
		}
		_ = bcrypt.CompareHashAndPassword(dummy, []byte(password))
		return ErrBadCredentials
	}
	if err != nil {
		return fmt.Errorf("access: verify %q: %w", user, err)
	}
	hash := strings.TrimPrefix(stored, boardUser)
	if bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) != nil {
		return ErrBadCredentials
	}
	return nil
}

// Stamp identifies the account's current password and kind: it changes when
// the password does, when a site admin becomes a board user or back, or when
// the account is removed and added again. Device
// cookies carry it, so they stop counting for a password that is gone.
// "" for an unknown admin.
func (a *Accounts) Stamp(ctx context.Context, user string) (string, error) {
	if len(user) > MaxUserLen {
		return "", nil
	}
	hash, err := a.rdb.HGet(ctx, adminsKey, user).Result()
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("access: stamp of %q: %w", user, err)
	}
	return shortHash("stamp:" + hash), nil
}

// Get reads an account; ErrNotFound when there is none (sessions of a
// removed user stop working at their next request).
func (a *Accounts) Get(ctx context.Context, user string) (Account, error) {
	if len(user) > MaxUserLen {
		return Account{}, fmt.Errorf("user %q: %w", LogSafe(user), ErrNotFound)
	}
	stored, err := a.rdb.HGet(ctx, adminsKey, user).Result()
	if errors.Is(err, redis.Nil) {
		return Account{}, fmt.Errorf("user %q: %w", user, ErrNotFound)
	}
	if err != nil {
		return Account{}, fmt.Errorf("access: user %q: %w", user, err)
	}
	return accountOf(user, stored), nil
}

// Exists reports whether an account exists.
func (a *Accounts) Exists(ctx context.Context, user string) (bool, error) {
	_, err := a.Get(ctx, user)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// List is every account, sorted by name.
func (a *Accounts) List(ctx context.Context) ([]Account, error) {
	all, err := a.rdb.HGetAll(ctx, adminsKey).Result()
	if err != nil {
		return nil, fmt.Errorf("access: list users: %w", err)
	}
	out := make([]Account, 0, len(all))
	for user, stored := range all {
		out = append(out, accountOf(user, stored))
	}
	slices.SortFunc(out, func(x, y Account) int { return strings.Compare(x.Name, y.Name) })
	return out, nil
}

// siteAdminsLua counts the site admins of KEYS[1] (values without the
// board-user mark).
const siteAdminsLua = `
local function site_admins()
  local n = 0
  for _, v in ipairs(redis.call('HVALS', KEYS[1])) do
    if string.sub(v, 1, 6) ~= 'board:' then n = n + 1 end
  end
  return n
end
`

// deleteScript removes an account unless it is the last site admin.
var deleteScript = redis.NewScript(siteAdminsLua + `
local v = redis.call('HGET', KEYS[1], ARGV[1])
if not v then return 'nf' end
if string.sub(v, 1, 6) ~= 'board:' and site_admins() <= 1 then return 'last' end
redis.call('HDEL', KEYS[1], ARGV[1])
return 'ok'`)

// kindScript makes an account a site admin (ARGV[2] = "site") or a board
// user ("board"), unless that would leave no site admin.
var kindScript = redis.NewScript(siteAdminsLua + `
local v = redis.call('HGET', KEYS[1], ARGV[1])
if not v then return 'nf' end
local board = string.sub(v, 1, 6) == 'board:'
if ARGV[2] == 'site' then
  if board then redis.call('HSET', KEYS[1], ARGV[1], string.sub(v, 7)) end
  return 'ok'
end
if board then return 'ok' end
if site_admins() <= 1 then return 'last' end
redis.call('HSET', KEYS[1], ARGV[1], 'board:' .. v)
return 'ok'`)

// SetSiteAdmin makes user a site admin, or a board user; the last site admin
// stays one (ErrLastAdmin). The account's Stamp changes, so the devices it
// signed in from are asked for the password again.
func (a *Accounts) SetSiteAdmin(ctx context.Context, user string, site bool) error {
	kind := "board"
	if site {
		kind = "site"
	}
	st, err := kindScript.Run(ctx, a.rdb, []string{adminsKey}, user, kind).Text()
	switch {
	case err != nil:
		return fmt.Errorf("access: change %q: %w", user, err)
	case st == "nf":
		return fmt.Errorf("user %q: %w", user, ErrNotFound)
	case st == "last":
		return ErrLastAdmin
	}
	return nil
}

// Delete removes an account; the last site admin stays (ErrLastAdmin).
func (a *Accounts) Delete(ctx context.Context, user string) error {
	st, err := deleteScript.Run(ctx, a.rdb, []string{adminsKey}, user).Text()
	switch {
	case err != nil:
		return fmt.Errorf("access: delete admin %q: %w", user, err)
	case st == "nf":
		return fmt.Errorf("admin %q: %w", user, ErrNotFound)
	case st == "last":
		return ErrLastAdmin
	}
	return nil
}
