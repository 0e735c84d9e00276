import { describe, expect, it } from 'vitest';
import { destinationPoint, distanceMetres } from '../../shared/geo.ts';
import { keepsTimeOrder, pathMetres, suggestRouteOrder, type RouteStop } from '../../shared/route-order.ts';

/** Points east of a centre in Stockholm, `km` kilometres out (a line), or anywhere by bearing. */
const centre = { lat: 59.33258, lng: 18.0649 };
const at = (id: number, east: number, north = 0, fixed = false): RouteStop => {
  const p = destinationPoint(destinationPoint(centre, 90, east * 1000), 0, north * 1000);
  return { id, lat: p.lat, lng: p.lng, fixed };
};

describe('route order (ADR 044)', () => {
  it('measures a path with haversine, without returning to the start', () => {
    const stops = [at(1, 0), at(2, 1), at(3, 3)];
    expect(pathMetres(stops)).toBeCloseTo(3000, -1);
    expect(pathMetres([])).toBe(0);
    expect(pathMetres([at(1, 0)])).toBe(0);
  });

  it('puts points on a line in the order along it', () => {
    const stops = [at(1, 0), at(2, 4), at(3, 1), at(4, 3), at(5, 2)];
    const { order, before, after } = suggestRouteOrder(stops);
    expect([
      [1, 3, 5, 4, 2],
      [2, 4, 5, 3, 1],
    ]).toContainEqual(order);
    expect(before).toBeCloseTo(10_000, -2);
    expect(after).toBeCloseTo(4000, -2);
  });

  it('walks the corners of a square around, not across', () => {
    // 1 (0,0), 2 (1,1), 3 (0,1), 4 (1,0): the given order crosses the square twice.
    const stops = [at(1, 0, 0), at(2, 1, 1), at(3, 0, 1), at(4, 1, 0)];
    const { order, before, after } = suggestRouteOrder(stops);
    expect(after).toBeCloseTo(3000, -1);
    expect(before).toBeGreaterThan(after + 800);
    // Three sides of the square, in either direction around it.
    const path = order.map((id) => stops.find((s) => s.id === id)!);
    for (let i = 1; i < path.length; i++) expect(distanceMetres(path[i - 1]!, path[i]!)).toBeCloseTo(1000, -1);
  });

  it('2-opt removes a crossing that nearest neighbour leaves', () => {
    // From 1 (fixed first), nearest neighbour goes 4, 3, then back east to 2 and 5: the leg 3→2 crosses 1→4.
    const stops = [at(1, 1.1, 1, true), at(2, 2.5, 1), at(3, 0.5, 0.9), at(4, 1.3, 0.9), at(5, 2.8, 1.7)];
    const greedy = [1, 4, 3, 2, 5].map((id) => stops.find((s) => s.id === id)!);
    expect(crosses(greedy)).toBe(true);
    const { order, after } = suggestRouteOrder(stops);
    expect(order).toEqual([1, 3, 4, 2, 5]);
    expect(crosses(order.map((id) => stops.find((s) => s.id === id)!))).toBe(false);
    expect(after).toBeLessThan(pathMetres(greedy) - 300);
  });

  it('keeps fixed stops in their places and time order, and places the others around them', () => {
    // 2 and 4 have agreed times (their places 2nd and 4th); the free stops are scattered along a line.
    const stops = [at(1, 5), at(2, 0, 0, true), at(3, 1), at(4, 4, 0, true), at(5, 3)];
    const { order, after, before } = suggestRouteOrder(stops);
    expect(order[1]).toBe(2);
    expect(order[3]).toBe(4);
    expect(new Set(order)).toEqual(new Set([1, 2, 3, 4, 5]));
    expect(after).toBeLessThan(before);
    // Best with 2 second and 4 fourth: 1 nearest 2 first (1 km away is 3), then 3→… the check is the optimum.
    const free = [1, 3, 5];
    const perms = (xs: number[]): number[][] => (xs.length <= 1 ? [xs] : xs.flatMap((x) => perms(xs.filter((y) => y !== x)).map((p) => [x, ...p])));
    const best = Math.min(...perms(free).map(([a, b, c]) => pathMetres([a!, 2, b!, 4, c!].map((id) => stops.find((s) => s.id === id)!))));
    expect(after).toBeCloseTo(best, 0);
  });

  it('keeps the order when every stop is fixed, or nothing is shorter', () => {
    const all = [at(1, 3, 0, true), at(2, 0, 0, true), at(3, 2, 0, true)];
    expect(suggestRouteOrder(all)).toMatchObject({ order: [1, 2, 3] });
    const straight = [at(1, 0), at(2, 1), at(3, 2)];
    const same = suggestRouteOrder(straight);
    expect(same.order).toEqual([1, 2, 3]);
    expect(same.after).toBeCloseTo(same.before, 6);
    expect(suggestRouteOrder([])).toEqual({ order: [], before: 0, after: 0 });
  });

  it('says whether agreed times are in time order', () => {
    expect(keepsTimeOrder(['09:00', null, '10:30', null])).toBe(true);
    expect(keepsTimeOrder(['10:30', null, '09:00'])).toBe(false);
    expect(keepsTimeOrder([null, null])).toBe(true);
  });
});

/** Does any pair of non-adjacent legs of the path intersect (on a plane, fine at a few kilometres)? */
function crosses(path: { lat: number; lng: number }[]): boolean {
  const ccw = (a: { lat: number; lng: number }, b: { lat: number; lng: number }, c: { lat: number; lng: number }) =>
    (c.lat - a.lat) * (b.lng - a.lng) > (b.lat - a.lat) * (c.lng - a.lng);
  for (let i = 0; i + 1 < path.length; i++)
    for (let j = i + 2; j + 1 < path.length; j++) {
      const [a, b, c, d] = [path[i]!, path[i + 1]!, path[j]!, path[j + 1]!];
      if (ccw(a, c, d) !== ccw(b, c, d) && ccw(a, b, c) !== ccw(a, b, d)) return true;
    }
  return false;
}
