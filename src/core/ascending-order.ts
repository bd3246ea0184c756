/**
 * `ids` in ascending order (UTF-16 code units, as `Array.prototype.sort` compares strings): `order[r]` is the position of
 * the r-th smallest id, and `rank[p]` the place of the id at position p (its inverse). The ids must be distinct. Tables that grow by appending keep their earlier rows in id order (a fresh build writes them so) and
 * add a few rows at the end: the longest ascending prefix is kept as it is, only the rows after it are sorted, and the
 * two runs are merged. On 2Wiki's 100,000 relations an update sorted every id again, most of 50 ms, to order a
 * thousand new ones.
 */
export function ascendingOrder(ids: readonly string[]): { order: Int32Array; rank: Int32Array } {
  const order = sortedPositions(ids);
  const rank = new Int32Array(ids.length);
  order.forEach((position, place) => {
    rank[position] = place;
  });
  return { order, rank };
}

function sortedPositions(ids: readonly string[]): Int32Array {
  const count = ids.length;
  let prefix = 1;
  while (prefix < count && (ids[prefix - 1] as string) < (ids[prefix] as string)) prefix++;
  const order = new Int32Array(count);
  if (prefix >= count) {
    for (let position = 0; position < count; position++) order[position] = position;
    return order;
  }
  const tail = Int32Array.from({ length: count - prefix }, (_, index) => prefix + index).sort((left, right) => ((ids[left] as string) < (ids[right] as string) ? -1 : 1));
  let fromPrefix = 0;
  let fromTail = 0;
  for (let place = 0; place < count; place++) {
    const tailPosition = tail[fromTail];
    if (fromPrefix < prefix && (tailPosition === undefined || (ids[fromPrefix] as string) < (ids[tailPosition] as string))) order[place] = fromPrefix++;
    else {
      order[place] = tailPosition as number;
      fromTail++;
    }
  }
  return order;
}
