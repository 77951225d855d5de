import { Description } from '@gantry/core';
import {
  ArrayMaxSize,
  IsArray,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';

export class CreateNote {
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  @Description('Short title of the note')
  title!: string;

  @IsString()
  @MaxLength(100_000)
  @Description('The note itself, in Markdown')
  body!: string;

  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  @Matches(/^[a-z0-9-]+$/, { each: true })
  @ArrayMaxSize(20)
  @Description('Lower-case tags such as "work" or "ideas"')
  tags?: string[];
}

export class NoteId {
  @IsString()
  @Matches(/^[0-9a-f]{8}$/)
  @Description('The id returned by create_note or search_notes')
  id!: string;
}

export class SearchNotes {
  @IsString()
  @Description('Words that must all appear in the title, body or tags; empty lists every note')
  query!: string;

  @IsOptional()
  @IsString()
  @Description('Only notes with this tag')
  tag?: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  @Description('At most this many notes, newest first')
  limit = 10;
}
