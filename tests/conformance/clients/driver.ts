/**
 * One official client SDK, driven through the conversations every client plays (clients.test.ts):
 * an answer to instructions and a prompt, and a round trip through two tools. Each driver speaks
 * its SDK's own API and reads the answer back into a Turn.
 */
import type { Target } from "../harness.ts";

export interface Turn {
  text: string;
  calls: Array<{ id?: string; name: string; args: unknown }>;
  /** In the client's own vocabulary. */
  finish: string | null | undefined;
  usage: { input?: number; output?: number };
  /** Relay's x-svc-provider answer header. */
  provider: string | null | undefined;
  /** The reasoning text the client shows, if any. */
  thinking?: string;
}

export interface ClientDriver {
  /** The client's finish reasons for an answer and for a turn that calls tools. */
  finish: { stop: string; tools: string };
  /** Whether the client's format carries tool-call ids (Gemini's pairs a result with its call by name). */
  carriesIds: boolean;
  /** The instruction texts the vendor must receive for text(), in order. */
  system: string[];
  /** The bodies the client sent to Relay, oldest first (through a tapped fetch). */
  sent: string[];
  /** The model the client names to reach the target. */
  model(target: Target): string;
  /** Whether the target serves the client's format as it is: the vendor gets the client's bytes. */
  passthrough(target: Target): boolean;
  text(model: string, stream: boolean): Promise<Turn>;
  /** The client's own features in what a vendor of another format received for text(). */
  expectTranslated?(target: Target, body: any): void;
  /** Both tools called; both results (scripts.ts TOOL_RESULTS) sent back; the answer to them. */
  roundTrip(model: string, stream: boolean): Promise<{ first: Turn; second: Turn }>;
}

export const SYSTEM_PROMPT = "Answer briefly.";
export const PROMPT = "Say hello";
export const TOOL_QUESTION = "Weather and time in Paris?";
