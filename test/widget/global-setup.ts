/** @module Starts the fake proxy for the component tests (in Node) and gives its URL to the browser. */
import type { TestProject } from 'vitest/node';
import { startFakeProxy } from '../helpers/fake-proxy.js';

declare module 'vitest' {
  export interface ProvidedContext {
    proxyUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const proxy = await startFakeProxy();
  project.provide('proxyUrl', proxy.url);
  return () => proxy.close();
}
