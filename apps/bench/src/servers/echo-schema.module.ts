// The echo tool with its arguments given as a plain JSON Schema instead of a class-validator
// DTO: nothing here loads class-validator, so cold start does not pay for it. Served over stdio
// (gantry-schema-echo.ts) and over HTTP (http/gantry.ts), so both measure the same tool.
import 'reflect-metadata';
import { Args, Injectable, Module, Tool } from '@gantry/core';

@Injectable()
class EchoTools {
  @Tool({
    description: 'Echoes its input',
    input: {
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
      additionalProperties: false,
    },
  })
  echo(@Args() args: { text: string }) {
    return args.text;
  }
}

@Module({ providers: [EchoTools] })
export class EchoSchemaModule {}
