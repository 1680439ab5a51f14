// A view that throws on any index outside the buffer, so a parser test sees an out-of-bounds read instead
// of a silent `undefined`.
export function guarded(bytes: Uint8Array): Uint8Array {
  return new Proxy(bytes, {
    get(target, prop) {
      if (typeof prop === "string" && /^-?\d+$/.test(prop)) {
        const i = Number(prop);
        if (i < 0 || i >= target.length) throw new RangeError(`read at ${i} of ${target.length}`);
        return target[i];
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}
