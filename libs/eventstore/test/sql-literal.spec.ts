/** Values inlined into scripts (the event store's two-round-trip appends) come back as they went in. */
import { PgliteSqlClient, sqlLiteral } from '../src/sql/sql-client';

describe('sqlLiteral', () => {
  it('round-trips strings with quotes, backslashes and the dollar tags themselves, and numbers', async () => {
    const db = await PgliteSqlClient.open();
    try {
      const values = ['plain', "it's", 'back\\slash', '{"a":"q\\"uote\'s"}', '$l0$', 'ends with $l0', '$l0$ and $l1$ and $l', 'ünïcode ✓', ''];
      for (const v of values) expect((await db.query<{ v: string }>(`SELECT ${sqlLiteral(v)}::text AS v`))[0].v).toBe(v);
      expect((await db.query<{ v: number }>(`SELECT ${sqlLiteral(-42.5)}::float8 AS v`))[0].v).toBe(-42.5);
      expect(() => sqlLiteral(Number.NaN)).toThrow('not a finite number');
    } finally {
      await db.close();
    }
  });
});
