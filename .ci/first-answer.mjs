// Asks the running demo (`npm start`) one question through its proxy, as the widget does, and
// waits for the answer: exit 0 when it completes with at least one source, 1 otherwise.
// Usage: node .ci/first-answer.mjs http://127.0.0.1:3000 [timeout-seconds]
const base = process.argv[2] ?? 'http://127.0.0.1:3000';
const deadline = Date.now() + Number(process.argv[3] ?? 600) * 1000;
const question = 'How do I embed the widget on my site?';

async function attempt() {
  const sent = await fetch(`${base}/api/support/chat`, { method: 'POST', headers: { 'content-type': 'application/json', origin: base }, body: JSON.stringify({ message: question }) });
  if (sent.status !== 202) throw new Error(`POST /api/support/chat answered ${sent.status}: ${await sent.text()}`);
  const cookie = (sent.headers.get('set-cookie') ?? '').split(';')[0];
  const { conversation_id: id } = await sent.json();
  for (;;) {
    const res = await fetch(`${base}/api/support/chat/${id}`, { headers: { cookie, origin: base, prefer: 'wait=10' } });
    const conversation = await res.json();
    if (res.status !== 200) throw new Error(`GET answered ${res.status}: ${JSON.stringify(conversation)}`);
    if (conversation.status === 'failed') throw new Error('the answer failed');
    if (conversation.status === 'completed') return conversation.messages.at(-1);
    if (Date.now() > deadline) throw new Error('no answer in time');
  }
}

for (;;) {
  try {
    const answer = await attempt();
    if (!answer.sources?.length) {
      console.error(`answered without sources: ${answer.content.slice(0, 200)}`);
      process.exit(1);
    }
    console.log(`first answer, with ${answer.sources.length} source(s): ${answer.sources.map((s) => s.title).join('; ')}`);
    process.exit(0);
  } catch (error) {
    // Not listening yet (still building or indexing): try again until the deadline.
    if (Date.now() > deadline) {
      console.error(`no answer from ${base}: ${error.message}`);
      process.exit(1);
    }
    if (!/fetch failed|ECONNREFUSED/.test(`${error.message} ${error.cause?.code ?? ''}`)) {
      console.error(error.message);
      process.exit(1);
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}
