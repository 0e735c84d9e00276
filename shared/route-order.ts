import { distanceMetres } from './geo.ts';

/**
 * A suggested visiting order for one buddy's day (ADR 044). Pure: no clock, no randomness, the same answer for
 * the same stops, so the browser shows it and the tests pin it on known instances.
 */
export interface RouteStop {
  id: number;
  lat: number;
  lng: number;
  /**
   * The stop keeps its place in the order: an agreed time (the customer waits for the buddy then), or a stop
   * already finished. Fixed stops are given in time order and stay in it.
   */
  fixed: boolean;
}

export interface RouteSuggestion {
  /** The stops' ids in the suggested order. */
  order: number[];
  /** Length of the path through the stops in the order given, and in the suggested one, in metres (straight lines). */
  before: number;
  after: number;
}

/** Length of the path through `stops` in their order, in metres (haversine, no return to the start). */
export function pathMetres(stops: readonly Pick<RouteStop, 'lat' | 'lng'>[]): number {
  let total = 0;
  for (let i = 1; i < stops.length; i++) total += distanceMetres(stops[i - 1]!, stops[i]!);
  return total;
}

/**
 * The route through the free stops, each fixed stop kept at its index: `free` (free stops in visiting order)
 * fills the positions no fixed stop holds.
 */
function merge(slots: readonly (RouteStop | null)[], free: readonly RouteStop[]): RouteStop[] {
  let next = 0;
  return slots.map((stop) => stop ?? free[next++]!);
}

/**
 * Nearest neighbour: walk the positions in order; a fixed position takes its stop, a free one the free stop
 * nearest to the stop before it (the first free stop is `first` when the route starts with a free position).
 */
function nearestNeighbour(slots: readonly (RouteStop | null)[], freeStops: readonly RouteStop[], first: RouteStop): RouteStop[] {
  const left = new Set(freeStops);
  const free: RouteStop[] = [];
  let previous: RouteStop | null = null;
  for (const slot of slots) {
    if (slot) {
      previous = slot;
      continue;
    }
    let best: RouteStop = previous === null ? first : [...left][0]!;
    if (previous !== null) {
      let bestDistance = Infinity;
      for (const candidate of left) {
        const d = distanceMetres(previous, candidate);
        // Ties go to the earlier stop of the current order, so the answer does not depend on set order quirks.
        if (d < bestDistance - 1e-9) {
          best = candidate;
          bestDistance = d;
        }
      }
    }
    left.delete(best);
    free.push(best);
    previous = best;
  }
  return free;
}

/**
 * 2-opt over the free stops' sequence: reverse any run of it while that shortens the whole route (fixed stops
 * in their places), until no reversal does. The day's stops are a handful, so the O(n³) pass is instant.
 */
function twoOpt(slots: readonly (RouteStop | null)[], start: readonly RouteStop[]): RouteStop[] {
  let free = [...start];
  let best = pathMetres(merge(slots, free));
  let improved = true;
  while (improved) {
    improved = false;
    for (let i = 0; i < free.length - 1; i++) {
      for (let j = i + 1; j < free.length; j++) {
        const candidate = [...free.slice(0, i), ...free.slice(i, j + 1).reverse(), ...free.slice(j + 1)];
        const length = pathMetres(merge(slots, candidate));
        // A millimetre's gain is noise: only a real one counts, so the loop ends.
        if (length < best - 1e-3) {
          free = candidate;
          best = length;
          improved = true;
        }
      }
    }
  }
  return free;
}

/**
 * Suggests an order for the day's stops that shortens the path between them while every fixed stop keeps its
 * place (its index in `stops`, which is the current visiting order). The free stops are placed by nearest
 * neighbour — tried from each free stop when the route starts with one — and improved by 2-opt; the shortest
 * wins, and the current order is kept when nothing beats it.
 */
export function suggestRouteOrder(stops: readonly RouteStop[]): RouteSuggestion {
  const before = pathMetres(stops);
  const slots = stops.map((s) => (s.fixed ? s : null));
  const freeStops = stops.filter((s) => !s.fixed);
  let bestFree = freeStops;
  let best = before;
  const starts = slots[0] === null ? freeStops : freeStops.slice(0, 1);
  for (const first of starts) {
    const free = twoOpt(slots, nearestNeighbour(slots, freeStops, first));
    const length = pathMetres(merge(slots, free));
    if (length < best - 1e-3) {
      best = length;
      bestFree = free;
    }
  }
  return { order: merge(slots, bestFree).map((s) => s.id), before, after: best };
}

/** Whether the fixed-time stops of an order are in time order ("HH:MM" compares as text). */
export function keepsTimeOrder(times: readonly (string | null)[]): boolean {
  const fixed = times.filter((t): t is string => Boolean(t));
  return fixed.every((time, i) => i === 0 || fixed[i - 1]! <= time);
}
