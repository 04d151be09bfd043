/**
 * What each replayed vendor recording contains, read off the recording files by
 * hand (not through Relay's codecs): the answer's text, reasoning, tool calls,
 * finish and usage, in OpenAI terms.
 */

/** Exact text, or its first and last characters for long answers. */
export type TextExpectation = string | { start: string; end: string };

export interface Expected {
  text?: TextExpectation;
  reasoning?: TextExpectation;
  /** Tool calls in order; `id` only where the vendor assigns one. */
  tools?: Array<{ id?: string; name: string; args: unknown }>;
  finish: "stop" | "tool_calls";
  /** Usage as the recording states it in OpenAI terms (prompt includes cached). */
  usage: { prompt: number; completion: number; cached: number; reasoning?: number };
  /** Output tokens including reasoning, where the vendor counts reasoning outside completion_tokens (xAI). */
  irOutput?: number;
}

export interface Recording {
  file: string;
  expect: Expected;
}

const SF = { location: "San Francisco" };

export const ANTHROPIC_RECORDINGS: Recording[] = [
  {
    file: "anthropic/anthropic-text.json",
    expect: { text: "Hello! I'm doing well, thanks for asking. How are you doing today? Is there anything I can help you with?", finish: "stop", usage: { prompt: 12, completion: 29, cached: 0 } },
  },
  {
    file: "anthropic/anthropic-text.chunks.txt",
    expect: { text: "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?", finish: "stop", usage: { prompt: 12, completion: 30, cached: 0 } },
  },
  {
    file: "anthropic/anthropic-clear-thinking.1.json",
    expect: { text: "925 ÷ 5 = 185", reasoning: "925 divided by 5 = 185", finish: "stop", usage: { prompt: 69, completion: 33, cached: 0 } },
  },
  {
    file: "anthropic/anthropic-clear-thinking.1.chunks.txt",
    expect: {
      text: "925 ÷ 5 = 185",
      reasoning: { start: "The previous result was 925. Now I need to divide ", end: "vide that by 5.\n\n925 ÷ 5 = 185" },
      finish: "stop",
      usage: { prompt: 69, completion: 53, cached: 0 },
    },
  },
  {
    file: "anthropic/anthropic-tool-no-args.json",
    expect: {
      text: { start: "<thinking>\nThe updateIssueList tool was provided", end: "Okay, I will update the current issue list:" },
      tools: [{ id: "toolu_01LRmxn9vGM1d2DZSDBowdZ1", name: "updateIssueList", args: {} }],
      finish: "tool_calls",
      usage: { prompt: 602, completion: 93, cached: 0 },
    },
  },
  {
    file: "anthropic/anthropic-tool-no-args.chunks.txt",
    expect: {
      text: "I'll update the issue list for you.",
      tools: [{ id: "toolu_01QE1WLsSVp5hy5Q3GmGTmjP", name: "updateIssueList", args: {} }],
      finish: "tool_calls",
      usage: { prompt: 565, completion: 48, cached: 0 },
    },
  },
  {
    file: "anthropic/anthropic-json-tool.1.json",
    expect: {
      tools: [
        {
          id: "toolu_01Q9ExVZnzZj7E2QQYHYtNUa",
          name: "json",
          args: {
            elements: [
              { location: "San Francisco", temperature: -5, condition: "snowy" },
              { location: "London", temperature: 0, condition: "snowy" },
              { location: "Paris", temperature: 23, condition: "cloudy" },
              { location: "Berlin", temperature: -9, condition: "snowy" },
            ],
          },
        },
      ],
      finish: "tool_calls",
      usage: { prompt: 1151, completion: 87, cached: 0 },
    },
  },
  {
    file: "anthropic/anthropic-json-tool.1.chunks.txt",
    expect: {
      tools: [{ id: "toolu_01KFbKqPYSuAKujiL6mTfzYA", name: "json", args: { elements: [{ location: "San Francisco", temperature: 58, condition: "sunny" }] } }],
      finish: "tool_calls",
      usage: { prompt: 849, completion: 47, cached: 0 },
    },
  },
  // A refusal carries no content at all: only the stop reason and usage.
  { file: "anthropic/anthropic-refusal.json", expect: { finish: "stop", usage: { prompt: 18, completion: 5, cached: 0 } } },
  { file: "anthropic/anthropic-refusal.chunks.txt", expect: { finish: "stop", usage: { prompt: 18, completion: 5, cached: 0 } } },
];

const STRAWBERRY = 'There are **3** "r"s in strawberry.\n\nHere is the breakdown: st**r**awbe**rr**y.';

/** Gemini counts thoughts outside candidatesTokenCount; OpenAI's completion_tokens include them. */
export const GEMINI_RECORDINGS: Recording[] = [
  {
    file: "google/google-text.json",
    expect: { text: "There are **3** r's in strawberry.\n\nHere is the breakdown: st**r**awbe**rr**y.", finish: "stop", usage: { prompt: 9, completion: 28 + 244, cached: 0, reasoning: 244 } },
  },
  {
    file: "google/google-text.chunks.txt",
    expect: { text: 'There are **3** "r"s in strawberry.\n\nst**r**awbe**rr**y', finish: "stop", usage: { prompt: 9, completion: 23 + 185, cached: 0, reasoning: 185 } },
  },
  { file: "google/google-reasoning.json", expect: { text: STRAWBERRY, finish: "stop", usage: { prompt: 9, completion: 29 + 282, cached: 0, reasoning: 282 } } },
  { file: "google/google-reasoning.chunks.txt", expect: { text: STRAWBERRY, finish: "stop", usage: { prompt: 9, completion: 29 + 256, cached: 0, reasoning: 256 } } },
  {
    file: "google/google-tool-call.json",
    expect: { tools: [{ name: "weather", args: SF }], finish: "tool_calls", usage: { prompt: 29, completion: 15 + 893, cached: 0, reasoning: 893 } },
  },
  {
    file: "google/google-tool-call.chunks.txt",
    expect: { tools: [{ name: "weather", args: SF }], finish: "tool_calls", usage: { prompt: 29, completion: 15 + 45, cached: 0, reasoning: 45 } },
  },
];

export interface CompatRecording extends Recording {
  /** How Relay is asked for this vendor. */
  model: string;
}

/** OpenAI-format vendors; usage exactly as the vendor reported it. */
export const OPENAI_FAMILY_RECORDINGS: CompatRecording[] = [
  {
    model: "xai:grok-4",
    file: "xai/xai-text.json",
    expect: {
      text: "Hello",
      reasoning: { start: 'First, the user said: "Say a single word."', end: " greeting and keeps it simple." },
      finish: "stop",
      usage: { prompt: 12, completion: 1, cached: 2, reasoning: 228 },
      irOutput: 229,
    },
  },
  {
    model: "xai:grok-4",
    file: "xai/xai-text.chunks.txt",
    expect: { text: "Hello", reasoning: "First, the user said", finish: "stop", usage: { prompt: 12, completion: 1, cached: 11, reasoning: 290 }, irOutput: 291 },
  },
  {
    model: "xai:grok-4",
    file: "xai/xai-tool-call.json",
    expect: {
      reasoning: { start: "First, the user is asking about the weather in San", end: "to advance the user's request." },
      tools: [{ id: "call_93562515", name: "weather", args: SF }],
      finish: "tool_calls",
      usage: { prompt: 291, completion: 26, cached: 244, reasoning: 189 },
      irOutput: 215,
    },
  },
  {
    model: "xai:grok-4",
    file: "xai/xai-tool-call.chunks.txt",
    expect: {
      reasoning: "First, the user is",
      tools: [{ id: "call_55117580", name: "weather", args: SF }],
      finish: "tool_calls",
      usage: { prompt: 291, completion: 26, cached: 290, reasoning: 196 },
      irOutput: 222,
    },
  },
  {
    model: "deepseek:deepseek-chat",
    file: "deepseek/chat__deepseek-reasoning.json",
    expect: {
      text: 'The word "strawberry" contains three instances of the letter "r": one after the "t" and two before the "y".',
      reasoning: { start: "We are asked: \"How many 'r's are in the word 'stra", end: "'strawberry'?\" So answer is 3." },
      finish: "stop",
      usage: { prompt: 18, completion: 345, cached: 0, reasoning: 315 },
    },
  },
  {
    model: "deepseek:deepseek-chat",
    file: "deepseek/chat__deepseek-reasoning.chunks.txt",
    expect: {
      text: 'The word "strawberry" contains three "r"s.',
      reasoning: { start: 'We need to count the number of the letter "r" in t', end: "es, 3.\n\nThus, the answer is 3." },
      finish: "stop",
      usage: { prompt: 18, completion: 219, cached: 0, reasoning: 205 },
    },
  },
  {
    model: "deepseek:deepseek-chat",
    file: "deepseek/chat__deepseek-tool-call.json",
    expect: {
      reasoning: { start: "The user is asking for the weather in San Francisc", end: " me call the weather function." },
      tools: [{ id: "call_00_9V0vrf86Pc9aelHCJMZqnJBo", name: "weather", args: SF }],
      finish: "tool_calls",
      usage: { prompt: 339, completion: 92, cached: 320, reasoning: 48 },
    },
  },
  {
    model: "deepseek:deepseek-chat",
    file: "deepseek/chat__deepseek-tool-call.chunks.txt",
    expect: {
      reasoning: { start: "The user is asking for the weather in San Francisc", end: 'ameter set to "San Francisco".' },
      tools: [{ id: "call_00_ioIn7yN9p1ZOMNpDLwd4MgAF", name: "weather", args: SF }],
      finish: "tool_calls",
      usage: { prompt: 339, completion: 83, cached: 320, reasoning: 39 },
    },
  },
  {
    model: "groq:llama-3.3-70b-versatile",
    file: "groq/groq-text.json",
    expect: { text: { start: 'I\'d like to introduce "Luminaria" - a joyous holid', end: " brighter, more radiant world." }, finish: "stop", usage: { prompt: 45, completion: 607, cached: 0 } },
  },
  {
    model: "groq:llama-3.3-70b-versatile",
    file: "groq/groq-text.chunks.txt",
    expect: { text: { start: 'Introducing "Luminaria" - a new holiday that celeb', end: "iation for the magic of light." }, finish: "stop", usage: { prompt: 45, completion: 662, cached: 0 } },
  },
  {
    model: "groq:llama-3.3-70b-versatile",
    file: "groq/groq-tool-call.json",
    expect: { tools: [{ id: "ax9fskhev", name: "weather", args: {} }], finish: "tool_calls", usage: { prompt: 218, completion: 15, cached: 0 } },
  },
  {
    model: "groq:llama-3.3-70b-versatile",
    file: "groq/groq-tool-call.chunks.txt",
    expect: { tools: [{ id: "tk85n1k4m", name: "weather", args: {} }], finish: "tool_calls", usage: { prompt: 210, completion: 15, cached: 0 } },
  },
  {
    model: "mistral:mistral-small-latest",
    file: "mistral/mistral-text.json",
    expect: { text: { start: '**Holiday Name: "World Kindness Day of Sharing"**\n', end: "te it? What would you share? 😊" }, finish: "stop", usage: { prompt: 13, completion: 434, cached: 0 } },
  },
  {
    model: "mistral:mistral-small-latest",
    file: "mistral/mistral-text.chunks.txt",
    expect: { text: "Hello, world! This is a test response.", finish: "stop", usage: { prompt: 13, completion: 8, cached: 0 } },
  },
  {
    model: "mistral:mistral-small-latest",
    file: "mistral/mistral-tool-call.json",
    expect: { tools: [{ id: "gSIMJiOkT", name: "weather", args: SF }], finish: "tool_calls", usage: { prompt: 124, completion: 22, cached: 0 } },
  },
  {
    model: "mistral:mistral-small-latest",
    file: "mistral/mistral-tool-call.chunks.txt",
    expect: { tools: [{ id: "gSIMJiOkT", name: "weather", args: SF }], finish: "tool_calls", usage: { prompt: 124, completion: 22, cached: 0 } },
  },
  {
    model: "gpt-4o-mini",
    file: "openai/chat__openai-text.json",
    expect: { text: { start: "**Holiday Name:** Galaxy Day  \n\n**Date:** October ", end: "up and dream beyond our world." }, finish: "stop", usage: { prompt: 16, completion: 363, cached: 0 } },
  },
  {
    model: "gpt-4o-mini",
    file: "openai/chat__openai-text.chunks.txt",
    expect: { text: { start: "**Holiday Name:** Harmony Day\n\n**Date:** Celebrate", end: "xperiences and mutual respect." }, finish: "stop", usage: { prompt: 16, completion: 300, cached: 0 } },
  },
];
