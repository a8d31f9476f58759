"""Raw write cost on a store's memories table, inside a transaction rolled back: insert N rows
copied from existing ones under new names, then move N memories to another project."""
import sqlite3, sys, time, statistics
db, n = sys.argv[1], int(sys.argv[2])
con = sqlite3.connect(db, isolation_level=None)
cols = "name, description, body, tags, refs, priority, load, source, created_at, updated_at, verified_at, expires_at, read_count, project_id, superseded_by, last_read_at"
ins, mov = [], []
for rep in range(5):
    con.execute("BEGIN")
    t = time.process_time()
    con.execute(f"INSERT INTO memories_memory ({cols}) SELECT 'w' || id || '-{rep}', description, body, tags, refs, priority, load, source, created_at, updated_at, verified_at, expires_at, read_count, project_id, superseded_by, last_read_at FROM memories_memory WHERE project_id = 2 ORDER BY id LIMIT {n}")
    ins.append(time.process_time() - t)
    t = time.process_time()
    con.execute(f"UPDATE memories_memory SET project_id = 3 WHERE id IN (SELECT id FROM memories_memory WHERE project_id = 2 AND name NOT LIKE 'w%' ORDER BY id LIMIT {n})")
    mov.append(time.process_time() - t)
    con.execute("ROLLBACK")
print(db, f"insert {n}: {statistics.median(ins)*1000:.1f} ms CPU, move {n} to another tier: {statistics.median(mov)*1000:.1f} ms CPU (medians of 5)")
