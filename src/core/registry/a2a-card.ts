// An A2A Agent Card (a2a-protocol.org, "AgentCard"), checked for the fields the protocol requires:
// name, description, version, capabilities, defaultInputModes, defaultOutputModes and skills (each
// with id, name, description and tags), and where the agent answers: `url` (protocol 0.x) or the
// first of `supportedInterfaces` (1.0). Other fields are kept as sent, unchecked.
import { array, httpUrl, object, text, texts } from "./fields.ts";

const MAX_SKILLS = 100;
const MAX_TAGS = 50;
const MAX_MODES = 20;

export interface CheckedCard {
  card: Record<string, unknown>;
  name: string;
  description: string;
  /** Where the agent answers. */
  url: string;
  /** The card's transport (preferredTransport or the interface's protocolBinding); JSONRPC when unsaid, as in A2A. */
  transport: string;
  skillIds: string[];
  /** Every skill's ids and tags, which discover's capability filter matches. */
  labels: string[];
}

export function checkCard(value: unknown, at = "card"): CheckedCard {
  const card = object(value, at);
  const name = text(card.name, `${at}.name`, 200);
  const description = text(card.description, `${at}.description`, 4000);
  text(card.version, `${at}.version`, 100);
  object(card.capabilities, `${at}.capabilities`);
  texts(card.defaultInputModes, `${at}.defaultInputModes`, MAX_MODES, 200);
  texts(card.defaultOutputModes, `${at}.defaultOutputModes`, MAX_MODES, 200);
  const labels: string[] = [];
  const skillIds = array(card.skills, `${at}.skills`, MAX_SKILLS).map((s, i) => {
    const skill = object(s, `${at}.skills[${i}]`);
    const id = text(skill.id, `${at}.skills[${i}].id`, 200);
    text(skill.name, `${at}.skills[${i}].name`, 200);
    text(skill.description, `${at}.skills[${i}].description`, 4000);
    labels.push(id, ...texts(skill.tags, `${at}.skills[${i}].tags`, MAX_TAGS, 100));
    return id;
  });
  return { card, name, description, ...whereItAnswers(card, at), skillIds, labels };
}

function whereItAnswers(card: Record<string, unknown>, at: string): { url: string; transport: string } {
  if (card.url === undefined && card.supportedInterfaces !== undefined) {
    const first = object(array(card.supportedInterfaces, `${at}.supportedInterfaces`, MAX_MODES)[0], `${at}.supportedInterfaces[0]`);
    const url = httpUrl(first.url, `${at}.supportedInterfaces[0].url`);
    return { url, transport: first.protocolBinding === undefined ? "JSONRPC" : text(first.protocolBinding, `${at}.supportedInterfaces[0].protocolBinding`, 64) };
  }
  const url = httpUrl(card.url, `${at}.url`);
  return { url, transport: card.preferredTransport === undefined ? "JSONRPC" : text(card.preferredTransport, `${at}.preferredTransport`, 64) };
}
