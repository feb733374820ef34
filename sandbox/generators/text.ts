/**
 * Word lists and texts of the generated analytics: deliberately full of what breaks naive
 * pipelines — accents (precomposed and combining), CJK, right-to-left scripts, emoji with
 * zero-width joiners, quotes, backslashes, tabs and newlines — and of the personal data
 * readers put in free text: e-mail addresses, phone numbers, API keys and bearer tokens in
 * search terms, comments, code, questions and answers (docs/privacy.md: none of it may be
 * stored as sent). Nothing here is random: the generators pick from these lists by hash.
 */

/**
 * First word of a search term. No spaces, pairwise distinct even under Unicode case
 * folding (so terms stay distinct case-insensitively, as the API counts them).
 */
export const SEARCH_HEADS = [
  'api',
  'auth',
  'café',
  'deploy',
  'webhook',
  'sdk',
  'naïve',
  '日本語',
  'straße',
  'ελληνικά',
  'кириллица',
  '한국어',
  'emoji',
  '🚀',
  'pagination',
  'rate',
  'error',
  'OAuth',
  'mcp',
  'llms.txt',
  'search',
  'analytics',
  'theme',
  'domain',
  'redirect',
  'openapi',
  'snippet',
  'tabs',
  'niño',
  'ação',
  'zürich',
  'français',
  'مرحبا',
  'שלום',
  'हिन्दी',
  '中文',
  '👩‍💻',
  'e\u0301cole',
  '"api-key"',
  'c:\\docs',
  'GitHub',
  'sso',
  'changelog',
  'cli',
] as const;

/**
 * The rest of a search term (may contain spaces; never ends with a space and a number, so
 * the numeric suffix of later catalogue blocks cannot make two terms equal).
 */
export const SEARCH_TAILS = [
  'keys',
  'limit',
  'how to',
  'not working',
  'example',
  'setup',
  'reference',
  'error 401 help',
  'überblick',
  'ne marche pas',
  'の使い方',
  'не работает',
  '😢',
  'quickstart',
  'vs graphql',
  'with next.js',
  'in python',
  'tutorial',
  'best practices',
  'troubleshooting',
  'fehler',
  'configuración',
  'token sk_test_4eC39HqLyjWDarjtT1zdp7dc',
  'call +1 (555) 010-4477 now',
  'mail ana.silva@example.com',
  'limits?',
  'docs',
  'tab\tseparated',
] as const;

/** Free-text feedback comments. */
export const COMMENTS = [
  'This page was exactly what I needed, thanks! Write to me at renée.dupont@example.fr',
  'Très utile, merci ! La section « Authentification » est claire.',
  'この例は動きません。バージョンを確認してください。',
  'Ошибка в примере: параметр limit должен быть числом.',
  '👍 great docs, call me on +44 20 7946 0958 if you want details',
  'The code sample uses "apiKey" but the text says "api_key" — which one is it?',
  'Missing a step between 2 and 3.\nAlso the screenshot is outdated.',
  'No entiendo cómo configurar el dominio personalizado.',
  'Bitte ein Beispiel für Webhooks mit Signaturprüfung ergänzen.',
  '링크가 깨졌어요',
  'Path C:\\Users\\me\\docs does not work on Windows',
  '🤖 the AI answer contradicted this page',
  'شكرا، هذا مفيد جدا',
  'Typo: "recieve" → "receive"',
  'Could you add a curl example?\tMy key mint_8f3kQ9zX2pL7vN4m stopped working',
  'Great! 🎉👩‍💻',
  'Outdated: the CLI flag is now --out, not --output.',
  'e\u0301le\u0300ve: accents de\u0301compose\u0301s',
] as const;

/** The comments of COMMENTS that praise a page; the others complain, ask or point at a mistake. */
const PRAISING: ReadonlySet<string> = new Set([COMMENTS[0], COMMENTS[1], COMMENTS[4], COMMENTS[12], COMMENTS[15]]);

/** Comments left with a thumbs up (contextual feedback, feedback.ts): praise only. */
export const PRAISE_COMMENTS: readonly string[] = COMMENTS.filter((comment) => PRAISING.has(comment));

/** Comments left with a thumbs down: complaints, questions and corrections, never praise. */
export const COMPLAINT_COMMENTS: readonly string[] = COMMENTS.filter((comment) => !PRAISING.has(comment));

/** Contact addresses left with contextual feedback. */
export const CONTACTS = [
  'ana.silva@example.com',
  'dev+docs@example.org',
  'renée.dupont@example.fr',
  'k.tanaka@example.jp',
  ' Ops-Team@Example.IO ',
  "j.o'brien@example.ie",
] as const;

/** Code-snippet feedback: the code, and the file name and language it is shown with. */
export const SNIPPETS = [
  {
    code: 'const client = new Mintlify({ apiKey: "mint_8f3kQ9zX2pL7vN4m" });\nawait client.search("café"); // ping ops-team@example.io',
    filename: 'example.ts',
    lang: 'typescript',
  },
  { code: 'curl -H "Authorization: Bearer $KEY" \\\n  https://api.example.com/v1/analytics/proj/views', filename: 'request.sh', lang: 'bash' },
  { code: 'import requests\nr = requests.get(url, params={"limit": 250})\nprint(r.json()["hasMore"])', filename: 'quickstart.py', lang: 'python' },
  { code: 'SELECT path, count(*) FROM views GROUP BY 1 -- 日本語のコメント', filename: 'query.sql', lang: 'sql' },
  { code: '```mdx\n<Card title="Überblick" icon="rocket" />\n```', filename: 'card.mdx', lang: 'mdx' },
  { code: 'fn main() {\n    println!("héllo 🌍");\n}', filename: 'main.rs', lang: 'rust' },
  { code: '{ "clé": "valeur", "emoji": "🎉" }', filename: 'données.json', lang: 'json' },
  { code: 'npm i mint\t# tab before the comment', filename: 'install.sh', lang: 'bash' },
] as const;

/** Questions asked to the assistant; `{topic}` is replaced by a search head. */
export const QUERIES = [
  'How do I set up {topic}? Reply to k.tanaka@example.jp',
  'Why does {topic} return a 401?',
  '¿Cómo configuro {topic} con Next.js?',
  '{topic} の設定方法を教えてください',
  'Is there a limit on {topic}? Call +1 555 010 9999',
  'Quelle est la différence entre {topic} et les webhooks ?',
  'Give me a curl example for {topic} with Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
  'Как обновить {topic}?',
  '{topic} not working after upgrade 😕',
  'Explain "{topic}" in one sentence.',
  'Can I use {topic} on the free plan?\nWe are on Pro.',
] as const;

/** Assistant answers. */
export const ANSWERS = [
  'You can configure this in `docs.json` under `navigation`. See the linked guide for an example.',
  'A 401 means the key is missing or expired. Generate a new admin key on the API keys page, or write to support@example.com (+1 555 010 2323).',
  'Sí: instala el SDK y define la variable de entorno `MINTLIFY_API_KEY`.',
  'ダッシュボードの「設定」から有効にできます。',
  'The limit is 100 requests per hour per organisation.\n\n```bash\ncurl -H "Authorization: Bearer mint_8f3kQ9zX2pL7vN4m" …\n```',
  'Voici un exemple : `mint dev --port 3333`. « Ça marche » ✅',
  'Webhooks are signed with HMAC-SHA256; verify the `X-Signature` header.',
] as const;

/** Clarifying questions the assistant asks back. */
export const CLARIFICATIONS = [
  'Do you mean the REST API or the CLI?',
  'Which plan is your organisation on?',
  '¿Te refieres al dominio personalizado o al subdominio?',
  'どのバージョンをお使いですか？',
] as const;

export const QUERY_CATEGORIES = ['getting_started', 'api_reference', 'troubleshooting', 'billing', 'integrations', 'other'] as const;

/** Titles of assistant sources (a page's heading). */
export const SOURCE_TITLES = [
  'Quickstart',
  'Authentication',
  'Überblick',
  'Rate limits',
  'Webhooks',
  'Custom domain',
  'API reference — Analytics',
  '日本語ガイド',
  'Troubleshooting "401 Unauthorized"',
  'Changelog 🚀',
] as const;
