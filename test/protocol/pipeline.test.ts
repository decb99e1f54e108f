import { describe, expect, it } from 'vitest';
import { compose, type Stage } from '../../src/protocol/pipeline.js';

type Ctx = { seen: string[]; answer?: string };
const stage = (name: string): Stage<Ctx> => (ctx, next) => {
  ctx.seen.push(name);
  return next();
};

describe('compose', () => {
  it('runs the stages in order and stays synchronous while none waits (no promise at all)', () => {
    const ctx: Ctx = { seen: [] };
    const result = compose([stage('a'), stage('b'), stage('c')])(ctx);
    expect(result).toBeUndefined();
    expect(ctx.seen).toEqual(['a', 'b', 'c']);
  });

  it('lets a stage answer without the rest, wait for something, and run code after the rest', async () => {
    const ctx: Ctx = { seen: [] };
    const waits: Stage<Ctx> = async (c, next) => {
      await new Promise((r) => setTimeout(r, 5));
      c.seen.push('waited');
      await next();
      c.seen.push('after');
    };
    const answers: Stage<Ctx> = (c) => {
      c.answer = 'done';
    };
    const result = compose([stage('a'), waits, answers, stage('never')])(ctx);
    expect(result).toBeInstanceOf(Promise);
    await result;
    expect(ctx).toEqual({ seen: ['a', 'waited', 'after'], answer: 'done' });
  });

  it('hands errors to the caller, thrown or rejected', async () => {
    const throws: Stage<Ctx> = () => {
      throw new Error('refused');
    };
    expect(() => compose([stage('a'), throws])({ seen: [] })).toThrow('refused');
    const rejects: Stage<Ctx> = async () => {
      throw new Error('later');
    };
    await expect(compose([stage('a'), rejects])({ seen: [] })).rejects.toThrow('later');
  });

  it('keeps each request to its own position in the stages, however requests interleave', async () => {
    const slow: Stage<Ctx> = async (c, next) => {
      await new Promise((r) => setTimeout(r, c.seen.length === 1 ? 10 : 1));
      return next();
    };
    const run = compose([stage('a'), slow, stage('b')]);
    const one: Ctx = { seen: [] };
    const two: Ctx = { seen: [] };
    await Promise.all([run(one), run(two)]);
    expect([one.seen, two.seen]).toEqual([['a', 'b'], ['a', 'b']]);
  });

  it('refuses a second next() from one stage with a clear error, synchronously and after a wait', async () => {
    const twice: Stage<Ctx> = (c, next) => {
      next();
      return next();
    };
    const ctx: Ctx = { seen: [] };
    expect(() => compose([stage('a'), twice, stage('b')])(ctx)).toThrow('next() called multiple times');
    // The rest ran once, not twice.
    expect(ctx.seen).toEqual(['a', 'b']);
    const later: Stage<Ctx> = async (c, next) => {
      await next();
      await new Promise((r) => setTimeout(r, 1));
      await next();
    };
    const afterWait: Ctx = { seen: [] };
    await expect(compose([later, stage('b')])(afterWait)).rejects.toThrow('next() called multiple times');
    expect(afterWait.seen).toEqual(['b']);
    // The last stage too.
    expect(() => compose([stage('a'), twice])({ seen: [] })).toThrow('next() called multiple times');
  });
});
