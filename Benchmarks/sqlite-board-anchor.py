#!/usr/bin/env python3
"""What the animal list's board costs a durable submit, apart from petspotd's code: Python's own
sqlite3 module storing reports with petspotd's whole schema (taken from a database petspotd
made), WAL, synchronous=FULL and secure_delete on, one commit per report and commits of 16, in
one of three ways (docs/PERFORMANCE.md, "A group's turn on the database thread, without a task"):
  full     the report, its delivery and life rows and its board row in one transaction, as
           petspotd stores a report;
  noboard  the same without the board row;
  behind   the board rows kept back and inserted 64 at a time in a transaction of their own,
           unsynced, as a board rebuilt from the reports after a crash could be written.
  python3 Benchmarks/sqlite-board-anchor.py DIR SECONDS DATABASE full|noboard|behind
PAGE_SIZE=n creates the scratch databases with that page size (default: SQLite's, 4096).
Prints reports/s over the wall time (the board's own transactions included) and the p50 of a
submit's commit."""
import os, sqlite3, statistics, sys, time, uuid

directory, seconds, schema_from, mode = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
if mode not in ("full", "noboard", "behind"):
    sys.exit("mode is full, noboard or behind")
values = ('{"chipNumber":"61609123456789","photo":{"mediaType":"image/png","bytes":70,"sha256":"6b7f"},'
          '"disappearanceDate":"2026-11-25","species":"dog","race":"Beagle","gender":"male","age":4,'
          '"latitude":52.22968,"longitude":21.01223,"additionalDescription":null,"contactPhone":"+48123456789","contactEmail":null}')
photo = os.urandom(70)
board = ("INSERT INTO board (report_seq, id, box, status, version, submitted_at, updated_at_ms, latitude, longitude, chip_digits, species, "
         "photo_media_type, photo_bytes, photo_sha256, public_photo, public_photo_media_type, public_photo_bytes, public_photo_sha256, values_json) "
         "VALUES (?, ?, 'kiosk', 'missing', 1, '2026-11-26T12:04:31Z', 0, ?, ?, '61609123456789', 'dog', 'image/png', 70, '6b7f', 'cleaned', 'image/png', 70, '6b7f', ?)")

def run(per_commit):
    path = os.path.join(directory, "board-anchor-%s-%d.sqlite" % (mode, per_commit))
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
            if mode == "full":
                db.execute(board, row)
            elif mode == "behind":
                held.append(row)
        db.execute("COMMIT")
        commits.append(time.monotonic() - began)
        stored += per_commit
        if len(held) >= 64:
            db.execute("PRAGMA synchronous=OFF")
            db.execute("BEGIN")
            db.executemany(board, held)
            db.execute("COMMIT")
            db.execute("PRAGMA synchronous=FULL")
            held = []
    spent = time.monotonic() - began_all
    db.close()
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix): os.remove(path + suffix)
    print("python sqlite3, petspotd's schema, board %s, commits of %d: %.0f reports/s, one commit p50 %.2f ms"
          % (mode, per_commit, stored / spent, statistics.median(commits) * 1000))

for per_commit in (1, 16):
    run(per_commit)
