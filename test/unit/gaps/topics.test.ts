/**
 * Topics of unanswered questions by their words (issue 41): normalised text (NFKC, lower case,
 * stop words, simple stemming), key terms every question of a topic shares, the same topics on
 * every run, and a topic's key alone saying which questions it holds.
 */
import { describe, expect, it } from 'vitest';
import { groupTopics, inTopic, sameQuestion, stemOf, termsOf, termsOfKey, topicKeyOf } from '../../../functions/gaps/topics.js';

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
    expect([...termsOf('日本語 の設定方法を教えてください')]).toEqual(['日本語', 'の設定方法を教えてください']);
    expect([...termsOf('e\u0301cole')]).toEqual(['école']);
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
