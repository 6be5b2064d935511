#!/usr/bin/env python3
"""The disk's pace for durable submits, the anchor of the goals in docs/PERFORMANCE.md ("Durable
submits"): Python's own sqlite3 module on a fresh database in DIR, WAL and synchronous=FULL,
storing a report as petspotd stores one (its row with values and a 70-byte photo, its delivery
row, its life row) in a loop, one commit per report and then commits of 16.
  python3 Benchmarks/sqlite-anchor.py DIR [seconds] [petspotd's database]
Prints reports/s and the p50 of one commit for each. Given a database petspotd made, it also
stores them with petspotd's whole schema (its indexes, the animal list's board and R*Tree) and
secure_delete on, as petspotd's store writes them: what the schema costs, apart from the code.
  python3 Benchmarks/sqlite-anchor.py DIR SECONDS DATABASE with|without|behind
stores them with petspotd's schema only, in commits of 1 and of 16, the board row written with
the report (as petspotd does), not at all, or behind: kept back and inserted 64 at a time in a
transaction of its own without a sync, as a board rebuilt from the reports after a crash could
be written; the rate then counts the board's transactions too. PAGE_SIZE=n makes the scratch
databases with that page size (SQLite's default: 4096)."""
import os, sqlite3, statistics, sys, time, uuid

directory, seconds = sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 5
values = ('{"chipNumber":"61609123456789","photo":{"mediaType":"image/png","bytes":70,"sha256":"6b7f"},'
          '"disappearanceDate":"2026-11-25","species":"dog","race":"Beagle","gender":"male","age":4,'
          '"latitude":52.22968,"longitude":21.01223,"additionalDescription":null,"contactPhone":"+48123456789","contactEmail":null}')
photo = os.urandom(70)

def run(per_commit):
    path = os.path.join(directory, "anchor-%d.sqlite" % per_commit)
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix): os.remove(path + suffix)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("""CREATE TABLE report (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, flow_id TEXT NOT NULL UNIQUE,
                  owner_uid INTEGER NOT NULL, submitted_at TEXT NOT NULL, values_json TEXT NOT NULL, photo_media_type TEXT,
                  photo_sha256 TEXT, photo_bytes INTEGER, photo BLOB)""")
    db.execute("CREATE TABLE delivery (report_seq INTEGER PRIMARY KEY, delivered_at TEXT, delivered_version INTEGER NOT NULL DEFAULT 0, report_version INTEGER NOT NULL DEFAULT 1)")
    db.execute("CREATE TABLE report_life (report_seq INTEGER PRIMARY KEY, status TEXT NOT NULL, version INTEGER NOT NULL, updated_at_ms INTEGER NOT NULL, expiry_base_ms INTEGER)")
    stored, commits, end = 0, [], time.monotonic() + seconds
    while time.monotonic() < end:
        began = time.monotonic()
        db.execute("BEGIN")
        for _ in range(per_commit):
            seq = db.execute("INSERT INTO report (id, flow_id, owner_uid, submitted_at, values_json, photo_media_type, photo_sha256, photo_bytes, photo) "
                             "VALUES (?, ?, 1000, '2026-11-26T12:04:31Z', ?, 'image/png', '6b7f', 70, ?)",
                             (str(uuid.uuid4()), str(uuid.uuid4()), values, photo)).lastrowid
            db.execute("INSERT INTO delivery (report_seq) VALUES (?)", (seq,))
            db.execute("INSERT INTO report_life VALUES (?, 'missing', 1, 0, 0)", (seq,))
        db.execute("COMMIT")
        commits.append(time.monotonic() - began)
        stored += per_commit
    db.close()
    spent = sum(commits)
    print("python sqlite3, commits of %d: %.0f reports/s, one commit p50 %.2f ms" % (per_commit, stored / spent, statistics.median(commits) * 1000))

BOARD = ("INSERT INTO board (report_seq, id, box, status, version, submitted_at, updated_at_ms, latitude, longitude, chip_digits, species, "
         "photo_media_type, photo_bytes, photo_sha256, public_photo, public_photo_media_type, public_photo_bytes, public_photo_sha256, values_json) "
         "VALUES (?, ?, 'kiosk', 'missing', 1, '2026-11-26T12:04:31Z', 0, ?, ?, '61609123456789', 'dog', 'image/png', 70, '6b7f', 'cleaned', 'image/png', 70, '6b7f', ?)")

def run_full(schema_from, per_commit, board="with"):
    path = os.path.join(directory, "anchor-full-%d.sqlite" % per_commit)
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix): os.remove(path + suffix)
    source = sqlite3.connect(schema_from)
    statements = [sql for (sql,) in source.execute(
        "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'board_position_%' ORDER BY rowid")]
    source.close()
    db = sqlite3.connect(path, isolation_level=None)
    if "PAGE_SIZE" in os.environ:
        db.execute("PRAGMA page_size=%d" % int(os.environ["PAGE_SIZE"]))
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("PRAGMA secure_delete=ON")
    for sql in statements: db.execute(sql)
    stored, commits, n, held = 0, [], 0, []
    began_all = time.monotonic()
    end = began_all + seconds
    while time.monotonic() < end:
        began = time.monotonic()
        db.execute("BEGIN")
        for _ in range(per_commit):
            n += 1
            id = str(uuid.uuid4())
            seq = db.execute("INSERT INTO report (id, flow_id, owner_uid, submitted_at, values_json, photo_media_type, photo_sha256, photo_bytes, photo) "
                             "VALUES (?, ?, 1000, '2026-11-26T12:04:31Z', ?, 'image/png', '6b7f', 70, ?)",
                             (id, str(uuid.uuid4()), values, photo)).lastrowid
            db.execute("INSERT INTO delivery (report_seq, delivered_at, delivered_version, report_version) VALUES (?, NULL, 0, 1)", (seq,))
            db.execute("INSERT INTO report_life (report_seq, status, version, updated_at_ms, expiry_base_ms) VALUES (?, 'missing', 1, 0, 0)", (seq,))
            row = (seq, id, 5222968 + n % 1000, 2101223 + n % 997, values)
            if board == "with":
                db.execute(BOARD, row)
            elif board == "behind":
                held.append(row)
        db.execute("COMMIT")
        commits.append(time.monotonic() - began)
        stored += per_commit
        if len(held) >= 64:
            db.execute("PRAGMA synchronous=OFF")
            db.execute("BEGIN")
            db.executemany(BOARD, held)
            db.execute("COMMIT")
            db.execute("PRAGMA synchronous=FULL")
            held = []
    spent = time.monotonic() - began_all
    db.close()
    shape = "" if board == "with" else ", board %s" % board
    print("python sqlite3, petspotd's schema%s, commits of %d: %.0f reports/s, one commit p50 %.2f ms"
          % (shape, per_commit, stored / spent, statistics.median(commits) * 1000))

if len(sys.argv) > 4:
    if sys.argv[4] not in ("with", "without", "behind"):
        sys.exit("the board is with, without or behind")
    for per_commit in (1, 16):
        run_full(sys.argv[3], per_commit, sys.argv[4])
    sys.exit(0)
run(1)
run(16)
if len(sys.argv) > 3:
    for per_commit in (1, 8, 16):
        run_full(sys.argv[3], per_commit)
