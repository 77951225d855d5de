import { Injectable, Param, Resource } from '@gantry/core';

@Injectable()
export class {{pascal}}Resource {
  // Reading {{kebab}}://42 calls this method with id = '42'; returning undefined answers "not found".
  @Resource({
    uri: '{{kebab}}://{id}',
    mimeType: 'text/plain',
    description: 'Describe what {{kebab}}://{id} holds',
  })
  {{camel}}(@Param('id') id: string): string {
    return `{{kebab}} ${id}`;
  }
}
