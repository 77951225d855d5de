import { Injectable, Param, Resource } from '@gantry/core';
import { PNG_BASE64 } from './media';

/** The resources the conformance suite reads and subscribes to. */
@Injectable()
export class ConformanceResources {
  @Resource({
    uri: 'test://static-text',
    name: 'static-text',
    title: 'Static text',
    description: 'A static text resource',
    mimeType: 'text/plain',
  })
  staticText() {
    return 'This is the content of the static text resource.';
  }

  @Resource({
    uri: 'test://static-binary',
    name: 'static-binary',
    title: 'Static binary',
    description: 'A PNG image',
    mimeType: 'image/png',
  })
  staticBinary() {
    return Buffer.from(PNG_BASE64, 'base64');
  }

  @Resource({
    uri: 'test://template/{id}/data',
    name: 'template-data',
    description: 'Data by id',
    mimeType: 'application/json',
  })
  templateData(@Param('id') id: string) {
    return JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` });
  }

  @Resource({
    uri: 'test://watched-resource',
    name: 'watched-resource',
    description: 'A resource to subscribe to',
    mimeType: 'text/plain',
  })
  watched() {
    return 'Watched resource content';
  }
}
