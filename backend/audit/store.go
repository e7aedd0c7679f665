package audit

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/db"
)

// ErrClosed is returned by Append after Close.
var ErrClosed = errors.New("the audit store is closed; restart Gatehouse to record events")

// Options tune the writer. Zero values pick the defaults.
type Options struct {
	// MaxBatch is the most events committed in one transaction (default 1000).
	MaxBatch int
	// GroupCommitDelay bounds how long a commit holds on for announced
	// appends (default groupCommitDelay; see Announce).
	GroupCommitDelay time.Duration
	// QueueSize is how many appends may wait for the writer before Append
	// blocks (default 8192).
	QueueSize int
}

// Store is the audit timeline over a database opened with db.Open. It is
// safe for concurrent use.
type Store struct {
	db       *sql.DB
	wconn    *sql.Conn // the writer's own connection, held for the store's life
	durable  bool      // wconn commits with synchronous=FULL (writer goroutine only)
	log      *slog.Logger
	maxBatch int

	// sendMu is held (shared) by every sender for the duration of its send,
	// so Close can take it exclusively, after which no send is in flight and
	// reqs can be closed safely.
	sendMu sync.RWMutex
	closed bool
	reqs   chan *request
	done   chan struct{}
	// announced counts durable appends announced and not yet taken by the
	// writer (see Announce).
	announced atomic.Int64
	settled   chan struct{} // one wake-up for a writer holding on for announced appends
	// lastTime is the latest event time committed (writer goroutine only).
	lastTime      time.Time
	lastTimeKnown bool
	commits       atomic.Int64 // transactions committed, for tests
	groupDelay    time.Duration

	subMu sync.Mutex
	subs  map[*Subscription]struct{}
	// subsClosed is set by Close; later subscriptions start closed.
	subsClosed bool
}

// Open starts the store's writer over sqlDB, which must have been opened
// (and migrated) with db.Open. The caller keeps ownership of sqlDB; the
// store holds one of its connections for the writer until Close, so the pool
// must allow at least two.
func Open(ctx context.Context, sqlDB *sql.DB, logger *slog.Logger, opts Options) (*Store, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if opts.MaxBatch <= 0 {
		opts.MaxBatch = 1000
	}
	if opts.QueueSize <= 0 {
		opts.QueueSize = 8192
	}
	if opts.GroupCommitDelay <= 0 {
		opts.GroupCommitDelay = groupCommitDelay
	}
	seq, hash, err := readHead(ctx, sqlDB)
	if err != nil {
		return nil, err
	}
	logger.Debug("audit store open", "last_seq", seq, "last_hash", hash)
	wconn, err := sqlDB.Conn(ctx)
	if err != nil {
		return nil, db.Classify(fmt.Errorf("connect the audit writer: %w", err))
	}
	s := &Store{
		db:         sqlDB,
		wconn:      wconn,
		durable:    true, // db.Open checks the DSN set FULL
		log:        logger,
		maxBatch:   opts.MaxBatch,
		groupDelay: opts.GroupCommitDelay,
		settled:    make(chan struct{}, 1),
		reqs:       make(chan *request, opts.QueueSize),
		done:       make(chan struct{}),
		subs:       map[*Subscription]struct{}{},
	}
	go s.writeLoop()
	return s, nil
}

// Head returns the last committed seq and hash (0 and GenesisHash when empty).
func (s *Store) Head(ctx context.Context) (seq int64, hash string, err error) {
	return readHead(ctx, s.db)
}

type queryRower interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}

func readHead(ctx context.Context, q queryRower) (int64, string, error) {
	var seq int64
	var raw []byte
	err := q.QueryRowContext(ctx, "SELECT seq, hash FROM audit_events ORDER BY seq DESC LIMIT 1").Scan(&seq, &raw)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, GenesisHash, nil
	}
	if err != nil {
		return 0, "", db.Classify(fmt.Errorf("read the last audit event: %w", err))
	}
	h, err := hexHash(raw)
	if err != nil {
		return 0, "", fmt.Errorf("last audit event %d: %w", seq, err)
	}
	return seq, h, nil
}

// Close stops accepting appends, commits everything already accepted, and
// closes all subscriptions with ErrClosed. It does not close the *sql.DB.
func (s *Store) Close() error {
	s.sendMu.Lock()
	already := s.closed
	if !already {
		s.closed = true
		close(s.reqs)
	}
	s.sendMu.Unlock()
	<-s.done
	s.closeSubs()
	if already {
		return nil
	}
	if err := s.wconn.Close(); err != nil {
		return fmt.Errorf("close the audit writer connection: %w", err)
	}
	return nil
}
