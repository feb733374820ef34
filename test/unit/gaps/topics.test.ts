/**
 * Topics of unanswered questions by their words (issue 41): normalised text (NFKC, lower case,
 * stop words, simple stemming), key terms every question of a topic shares, the same topics on
 * every run, and a topic's key alone saying which questions it holds. Issue 57: Chinese,
 * Japanese and Korean cut into words (`Intl.Segmenter`) and grouped; time linear in the
 * questions and their length, proven by counting the steps taken, not by a clock.
 */
import { describe, expect, it } from 'vitest';
import { SEGMENT_PIECE, segmentPieces } from '../../../functions/gaps/terms.js';
import { groupTopics, inTopic, sameQuestion, termsOfKey, topicKeyOf, topicMatcher } from '../../../functions/gaps/topics.js';
import { stemOf, type Steps, termsOf, Vocabulary } from '../../../functions/gaps/terms.js';

const q = (text: string, unanswered: number) => ({ text, unanswered });

const QUESTIONS = [
  q('How do I verify webhook signatures?', 30),
  q('Webhook signature verification fails', 12),
  q('Why are my webhooks not signed?', 4),
  q('How do I set up a custom domain?', 25),
  q('Custom domains: SSL certificate pending', 9),
  q('Can I use the free plan for a custom domain?', 2),
  q('Explain 👩‍💻', 7),
  q('What is the rate limit of the API?', 3),
];

describe('the words of a question', () => {
  it('folds width and case (NFKC), drops stop words, one-character words and the cleaning’s placeholders', () => {
    expect([...termsOf('Ｗｈｙ does the ＡＰＩ return a 401? Reply to [email]')]).toEqual(['api', 'return', '401', 'reply']);
  });

  it('stems plurals and verb endings alike', () => {
    expect(['webhooks', 'webhook'].map(stemOf)).toEqual(['webhook', 'webhook']);
    expect(['configuring', 'configured', 'configure', 'configures'].map(stemOf)).toEqual(['configur', 'configur', 'configur', 'configur']);
    expect(['setting', 'set', 'sets'].map(stemOf)).toEqual(['set', 'set', 'set']);
    expect(['policies', 'policy'].map(stemOf)).toEqual(['policy', 'policy']);
  });

  it('keeps words with dots and dashes whole, and other scripts as written', () => {
    expect([...termsOf('Next.js with llms.txt and api-key')]).toEqual(['next.js', 'llms.txt', 'api-key']);
    expect([...termsOf('e\u0301cole')]).toEqual(['école']);
  });

  it('cuts Chinese, Japanese and Korean into words, leaving out their grammar', () => {
    expect([...termsOf('日本語 の設定方法を教えてください')]).toEqual(['日本語', '設定', '教え']);
    expect([...termsOf('APIキーを設定する方法は？')]).toEqual(['api', 'キー', '設定']);
    expect([...termsOf('如何设置API密钥？')]).toEqual(['设置', 'api', '密', '钥']);
    expect([...termsOf('웹훅 서명을 확인하는 방법')]).toEqual(['웹훅', '서명', '확인하']);
  });

  it('counts the same question once whatever its case, width, spaces and end punctuation', () => {
    expect(sameQuestion('  How do I  set up SSO?? ')).toBe(sameQuestion('how do i set up ＳＳＯ'));
  });
});

describe('grouping into topics', () => {
  it('groups questions that share their key words, the most unanswered topic first', () => {
    const { topics } = groupTopics(QUESTIONS);

    expect(topics.map((t) => t.name).slice(0, 2)).toEqual(['webhook', 'custom domain']);
    const [webhook, domain] = topics;
    expect(domain?.questions.map((x) => x.text)).toEqual([
      'How do I set up a custom domain?',
      'Custom domains: SSL certificate pending',
      'Can I use the free plan for a custom domain?',
    ]);
    expect(domain?.unanswered).toBe(36);
    expect(webhook?.questions).toHaveLength(3);
    expect(webhook?.unanswered).toBe(46);
  });

  it('every question of a topic holds all its key terms, and the key alone finds them again', () => {
    const { topics } = groupTopics(QUESTIONS);

    for (const topic of topics) {
      const key = termsOfKey(topicKeyOf(topic.terms));
      expect(key).toEqual(topic.terms);
      for (const question of topic.questions) expect(inTopic(termsOf(question.text), key), `${question.text} in ${topic.name}`).toBe(true);
      const others = QUESTIONS.filter((x) => !topic.questions.includes(x));
      for (const other of others) expect(inTopic(termsOf(other.text), key), `${other.text} not in ${topic.name}`).toBe(false);
    }
  });

  it('gives the same topics whatever the order of the questions', () => {
    const forward = groupTopics(QUESTIONS).topics.map((t) => topicKeyOf(t.terms));
    const backward = groupTopics([...QUESTIONS].reverse()).topics.map((t) => topicKeyOf(t.terms));

    expect(backward).toEqual(forward);
  });

  it('leaves out questions with no word to group by and says how many, and stops at the topic limit', () => {
    const { topics, left } = groupTopics([...QUESTIONS, q('🚀🚀🚀 ?', 5)], 2);

    expect(topics).toHaveLength(2);
    expect(left.questions).toBeGreaterThanOrEqual(1);
    expect(left.unanswered).toBeGreaterThanOrEqual(5);
  });

  it('ignores questions that were never left unanswered', () => {
    expect(groupTopics([q('How do I verify webhooks?', 0)]).topics).toEqual([]);
  });
});

describe('topics of questions written without spaces', () => {
  it('groups Japanese, Chinese and Korean questions that share their words', () => {
    const questions = [
      q('APIキーを設定する方法は？', 9),
      q('APIキーの設定ができません', 4),
      q('APIキーを再発行したい', 2),
      q('如何设置webhook签名？', 6),
      q('webhook签名验证失败', 3),
      q('웹훅 서명을 확인하는 방법', 5),
      q('웹훅 서명이 실패합니다', 1),
    ];

    const { topics } = groupTopics(questions);

    const byKey = new Map(topics.map((t) => [topicKeyOf(t.terms), t]));
    expect(byKey.get(topicKeyOf(['api', 'キー']))?.questions.map((x) => x.text)).toEqual([
      'APIキーを設定する方法は？',
      'APIキーの設定ができません',
      'APIキーを再発行したい',
    ]);
    expect(byKey.get(topicKeyOf(['webhook', '签名']))?.unanswered).toBe(9);
    expect(byKey.get(topicKeyOf(['웹훅', '서명']))?.questions).toHaveLength(2);
  });

  it('hands a long run to the segmenter in bounded pieces that cover it (never half a surrogate pair)', () => {
    const run = `${'设置密钥'.repeat(12_500)}𠀋${'日本語'.repeat(100)}`;

    const pieces = segmentPieces(run);

    expect(pieces.every(([start, end]) => end - start <= SEGMENT_PIECE && end > start)).toBe(true);
    expect(pieces.map(([start, end]) => run.slice(start, end)).join('')).toBe(run);
    expect(pieces.every(([, end]) => end === run.length || !/[\uD800-\uDBFF]/.test(run[end - 1] ?? ''))).toBe(true);
    expect(termsOf(run).has('设置')).toBe(true);
  });
});

/** `n` distinct questions of a few shared words and one of their own (the hostile day: every question different). */
function distinctQuestions(n: number): { text: string; unanswered: number }[] {
  const words = ['webhook', 'domain', 'deploy', 'token', 'sidebar', 'search', 'preview', 'analytics', 'billing', 'theme', 'redirect', 'openapi'];
  return Array.from({ length: n }, (_, i) => q(`${words[i % 12]} ${words[(i * 7 + 3) % 12]} ${words[(i * 5 + 1) % 11]} ref${i.toString(36)}x`, 1 + (i % 3)));
}

function stepsOf(run: (steps: Steps) => void): number {
  const steps = { steps: 0 };
  run(steps);
  return steps.steps;
}

describe('topics in linear time', () => {
  it('takes steps in proportion to the questions: twice the questions, at most about twice the steps', () => {
    const [small, large] = [5_000, 10_000].map((n) => {
      const questions = distinctQuestions(n);
      return stepsOf((steps) => groupTopics(questions, undefined, { steps }));
    }) as [number, number];

    // A round that weighed and sorted every term again made this ratio grow with the questions
    // (100 rounds × 10,000 terms of their own), and the steps were 100× the questions.
    expect(large / small).toBeLessThan(2.3);
    expect(large).toBeLessThan(10_000 * 60);
  });

  it('takes the same steps whatever the length of single-word questions of 50,000 characters', () => {
    const words = (length: number) => Array.from({ length: 100 }, (_, i) => q(`${'x'.repeat(length - 6)}${(100_000 + i).toString(36)}`, 1 + (i % 2)));
    const [short, long] = [1_000, 50_000].map((length) => {
      const questions = words(length);
      return stepsOf((steps) => groupTopics(questions, undefined, { steps }));
    }) as [number, number];

    expect(long).toBe(short);
    // Comparisons of two long words (the only cost that grows with their length) are counted
    // among the steps: n log n of them, not 100 rounds × n log n.
    expect(long).toBeLessThan(100 * 60);
  });

  it('reads each text once for every grouping and figure that shares a vocabulary', () => {
    const questions = distinctQuestions(2_000);
    const steps = { steps: 0 };
    const vocabulary = new Vocabulary(steps, { remember: true });
    groupTopics(questions, undefined, { vocabulary });
    const read = steps.steps;

    groupTopics(questions, undefined, { vocabulary });
    for (const question of questions) vocabulary.termIdsOf(question.text);

    expect(read).toBeGreaterThan(0);
    expect(steps.steps).toBe(read);
  });

  it('finds the topics a question is in by the keys’ terms, as inTopic does', () => {
    const vocabulary = new Vocabulary();
    const keys = [['webhook', 'domain'], ['deploy'], ['nowhere', 'webhook'], ['token', 'sidebar', 'search']];
    const match = topicMatcher(vocabulary, keys);

    for (const { text } of distinctQuestions(300)) {
      const expected = keys.flatMap((key, index) => (inTopic(termsOf(text), key) ? [index] : []));
      expect(match(vocabulary.termIdsOf(text)).sort(), text).toEqual(expected);
    }
  });

  it('trims the same question in steps linear in its length, whatever runs of ?!. it holds inside', () => {
    const text = `  ?a${'.'.repeat(50_000)}b!${' ?'.repeat(10_000)}`;
    const steps = { steps: 0 };

    expect(sameQuestion(text, steps)).toBe(`a${'.'.repeat(50_000)}b`);
    expect(steps.steps).toBeLessThanOrEqual(text.length + 2);
  });
});
