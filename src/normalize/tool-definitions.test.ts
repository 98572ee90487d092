import { describe, expect, it } from 'vitest';
import { readToolDefinitions } from './tool-definitions.js';

describe('readToolDefinitions: Gemini function declarations', () => {
  it("reads Gemini's schema as JSON Schema, a '__proto__' keyword kept as an own key", () => {
    // From a trace: assigned, the keyword set the converted schema's prototype instead.
    const text =
      '{"functionDeclarations":[{"name":"get_weather","parameters":{"type":"OBJECT","nullable":false,' +
      '"properties":{"city":{"type":"STRING","nullable":true}},"__proto__":{"required":["city"]}}}]}';
    const [tool] = readToolDefinitions(text);
    const parameters = tool!.parameters as Record<string, unknown>;
    expect(Object.getPrototypeOf(parameters)).toBe(Object.prototype);
    expect(Object.keys(parameters)).toEqual(['type', 'properties', '__proto__']);
    expect(parameters.required).toBeUndefined();
    expect(parameters.properties).toEqual({ city: { type: ['string', 'null'] } });
  });
});
