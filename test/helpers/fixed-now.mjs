// Role: a child process's clock fixed at FIXED_NOW (epoch ms): `node --import` this before the CLI,
// so a spawned command judges "whole days since" on the test's day. Only Date.now is replaced (what
// the CLI's `now` reads); DuckDB's clock is not the process's and is never asked.
const at = Number(process.env.FIXED_NOW);
if (Number.isFinite(at)) Date.now = () => at;
