package access

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/redis/go-redis/v9"
	"golang.org/x/crypto/bcrypt"
)

// Accounts are the admins.
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

// Create adds an admin; ErrExists if the name is taken.
func (a *Accounts) Create(ctx context.Context, user, password string) error {
	if err := CheckUser(user); err != nil {
		return err
	}
	if err := CheckPassword(password); err != nil {
		return err
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), a.cost)
	if err != nil {
		return fmt.Errorf("access: hash password: %w", err)
	}
	ok, err := a.rdb.HSetNX(ctx, adminsKey, user, hash).Result()
	if err != nil {
		return fmt.Errorf("access: create admin %q: %w", user, err)
	}
	if !ok {
		return fmt.Errorf("admin %q: %w", user, ErrExists)
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
	hash, err := a.rdb.HGet(ctx, adminsKey, user).Bytes()
	if errors.Is(err, redis.Nil) {
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
	if bcrypt.CompareHashAndPassword(hash, []byte(password)) != nil {
		return ErrBadCredentials
	}
	return nil
}

// Stamp identifies the account's current password: it changes when the
// password does, or when the admin is removed and added again. Device
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

// Exists reports whether an admin account exists; sessions of a removed
// admin stop working at their next request.
func (a *Accounts) Exists(ctx context.Context, user string) (bool, error) {
	ok, err := a.rdb.HExists(ctx, adminsKey, user).Result()
	if err != nil {
		return false, fmt.Errorf("access: admin %q: %w", user, err)
	}
	return ok, nil
}

// List names every admin, sorted.
func (a *Accounts) List(ctx context.Context) ([]string, error) {
	users, err := a.rdb.HKeys(ctx, adminsKey).Result()
	if err != nil {
		return nil, fmt.Errorf("access: list admins: %w", err)
	}
	slices.Sort(users)
	return users, nil
}

// deleteScript removes an admin unless it is the last one.
var deleteScript = redis.NewScript(`
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 'nf' end
if redis.call('HLEN', KEYS[1]) <= 1 then return 'last' end
redis.call('HDEL', KEYS[1], ARGV[1])
return 'ok'`)

// Delete removes an admin; the last one stays (ErrLastAdmin).
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
